/**
 * The building block of the core catalog: one primitive's entry, its props schema and its examples,
 * declared together so an entry can never lack a schema or an example (docs/decisions/A10.md).
 */
import { z } from 'zod';
import type { CORE_CATEGORIES } from '../schemas.ts';

/** A core primitive: catalog entry fields plus its props schema and at least one example. */
export interface CorePrimitive<Props extends z.ZodType = z.ZodType> {
  key: string;
  category: (typeof CORE_CATEGORIES)[number];
  description: string;
  bestFor: [string, ...string[]];
  avoidWhen?: string[];
  props: Props;
  examples: [CoreExample<Props>, ...CoreExample<Props>[]];
}

/** One example of a core primitive, typed by its props schema so a stale example fails to compile. */
export interface CoreExample<Props extends z.ZodType> {
  name: string;
  description: string;
  props: z.input<Props>;
}

/** Declares a core primitive; the identity function exists to infer `Props` from `props`. */
export function corePrimitive<Props extends z.ZodType>(definition: CorePrimitive<Props>): CorePrimitive {
  return definition as unknown as CorePrimitive;
}

/** Reusable prop shapes. Props objects are strict: an unknown prop is a mistake worth reporting. */
export const prop = {
  /** Key of an entity in the manifest (snake_case). */
  entity: z.string().regex(/^[a-z][a-z0-9_]*$/, { error: 'Must be a snake_case entity key' }),
  /** Key of a field of the bound entity. */
  field: z.string().min(1),
  /** A non-empty display text. */
  text: z.string().min(1),
  /** Name under which an input submits its value. */
  name: z.string().regex(/^[a-z][a-zA-Z0-9_]*$/, { error: 'Must be a field key such as "email" or "due_date"' }),
  /** Visual emphasis shared by badges, toasts and stat cards. */
  tone: z.enum(['neutral', 'info', 'success', 'warning', 'danger']),
  /** A choice of a select or radio group. */
  option: z.strictObject({ value: z.string().min(1), label: z.string().min(1) }),
  /** A command offered on a toolbar or bulk bar. */
  action: z.strictObject({
    key: z.string().min(1),
    label: z.string().min(1),
    capability: z.string().optional().describe('Capability key of the entity the action runs.'),
    variant: z.enum(['primary', 'secondary', 'danger']).optional(),
  }),
  /** A tab or named sub-view. */
  tab: z.strictObject({ key: z.string().min(1), label: z.string().min(1) }),
};
