// biome-ignore-all lint/suspicious/noExplicitAny: reads zod's untyped internal definitions (`_zod.def`), whose shape differs per schema kind
/**
 * The part of a zod schema the quick check models, read once from zod's own definitions: a small
 * tree of {@link Shape} nodes that both back ends of the check (`quick-check-source.ts`, which
 * generates one JavaScript function, and `quick-check-closures.ts`, one closure per node, for
 * runtimes that refuse generated code) turn into a check. Deciding here what is modelled keeps the
 * two back ends from disagreeing about it.
 *
 * Anything not modelled (a refinement, a transform, an unknown check or kind) becomes `never`:
 * "not proven", which costs speed, never correctness.
 */
import type { z } from 'zod';

type Def = Record<string, any>;

/** One size or format condition on a string (its length), a number (its value) or an array (its length). */
export type Condition =
  | { kind: 'atLeast' | 'atMost' | 'exactly' | 'above' | 'below'; value: number }
  | { kind: 'safeInteger' }
  | { kind: 'pattern'; pattern: RegExp };

/** A node of the modelled schema. Object, array, record and union nodes may be shared and form cycles (recursive schemas). */
export type Shape =
  | { kind: 'never' }
  | { kind: 'unknown' }
  | { kind: 'string'; conditions: Condition[] }
  | { kind: 'number'; conditions: Condition[] }
  | { kind: 'boolean' }
  /** One of a few primitive values (a literal or an enum). */
  | { kind: 'oneOf'; values: unknown[] }
  | { kind: 'optional'; inner: Shape }
  | { kind: 'nullable'; inner: Shape }
  | { kind: 'array'; conditions: Condition[]; element: Shape }
  /** `strict`: an unknown key is refused (zod's `never` catchall); otherwise unknown keys are stripped, so accepted. */
  | { kind: 'object'; strict: boolean; members: Member[] }
  | { kind: 'record'; key: Shape; value: Shape }
  | { kind: 'union'; options: Shape[] }
  /** A discriminated union: the member of `tag` picks the option. */
  | { kind: 'tagged'; tag: string; options: Map<unknown, Shape> };

/** A member of an object node. `optional` members may be absent (or `undefined`); `shape` is then the inner shape. */
export interface Member {
  key: string;
  optional: boolean;
  shape: Shape;
}

const NEVER: Shape = { kind: 'never' };

/** The conditions of zod checks on a string, number or array; `undefined` if one is not modelled. */
function conditionsOf(checks: readonly any[]): Condition[] | undefined {
  const conditions: Condition[] = [];
  for (const check of checks) {
    const def: Def = check._zod.def;
    switch (def.check) {
      case 'min_length':
        conditions.push({ kind: 'atLeast', value: def.minimum });
        break;
      case 'max_length':
        conditions.push({ kind: 'atMost', value: def.maximum });
        break;
      case 'length_equals':
        conditions.push({ kind: 'exactly', value: def.length });
        break;
      case 'greater_than':
        conditions.push({ kind: def.inclusive ? 'atLeast' : 'above', value: def.value });
        break;
      case 'less_than':
        conditions.push({ kind: def.inclusive ? 'atMost' : 'below', value: def.value });
        break;
      case 'number_format':
        if (def.format !== 'safeint') return undefined;
        conditions.push({ kind: 'safeInteger' });
        break;
      case 'string_format':
        if (def.format !== 'regex' || !(def.pattern instanceof RegExp)) return undefined;
        // Without the stateful flags, so `test` never depends on a previous call.
        conditions.push({ kind: 'pattern', pattern: new RegExp(def.pattern.source, def.pattern.flags.replace(/[gy]/g, '')) });
        break;
      default:
        return undefined;
    }
  }
  return conditions;
}

/** How {@link readShape} models a schema. */
export interface ShapeOptions {
  /**
   * Model only what zod would return unchanged: every object refuses unknown keys (zod would strip
   * them) and a member with a default is not modelled (zod would fill it in). A value the check
   * proves is then equal to zod's output, so it can be used in its place.
   */
  exact?: boolean;
}

/** Reads schemas into shapes, sharing one node per schema so that reference cycles close. */
class ShapeReader {
  private readonly memo = new Map<unknown, Shape>();

  constructor(private readonly options: ShapeOptions) {}

  read(schema: z.ZodType): Shape {
    const known = this.memo.get(schema);
    if (known) return known;
    // Registered before its children are read, so a cycle back to this schema finds it; filled in place.
    const shape = { kind: 'never' } as Shape;
    this.memo.set(schema, shape);
    Object.assign(shape, this.build(schema));
    return shape;
  }

  private build(schema: z.ZodType): Shape {
    const def = schema._zod.def as Def;
    // A type that is itself a check (z.int(), z.email()) runs as its own first check.
    const ownChecks: any[] = [...(def.check === undefined ? [] : [schema]), ...(def.checks ?? [])];
    const plain = ownChecks.length === 0;
    switch (def.type) {
      case 'string':
      case 'number': {
        const conditions = conditionsOf(ownChecks);
        return conditions ? { kind: def.type, conditions } : NEVER;
      }
      case 'boolean':
        return plain ? { kind: 'boolean' } : NEVER;
      case 'unknown':
        return { kind: 'unknown' };
      case 'literal':
        return { kind: 'oneOf', values: [...def.values] };
      case 'enum':
        return { kind: 'oneOf', values: Object.values(def.entries) };
      case 'default':
        if (this.options.exact) return NEVER;
        return { kind: 'optional', inner: this.read(def.innerType) };
      case 'optional':
        return { kind: 'optional', inner: this.read(def.innerType) };
      case 'nullable':
        return { kind: 'nullable', inner: this.read(def.innerType) };
      case 'array': {
        const conditions = conditionsOf(ownChecks);
        return conditions ? { kind: 'array', conditions, element: this.read(def.element) } : NEVER;
      }
      case 'object':
        return plain ? this.object(def) : NEVER;
      case 'record':
        return plain ? { kind: 'record', key: this.read(def.keyType), value: this.read(def.valueType) } : NEVER;
      case 'union':
        return plain ? this.union(def) : NEVER;
      default:
        return NEVER;
    }
  }

  private object(def: Def): Shape {
    const catchall = def.catchall?._zod.def.type as string | undefined;
    // No catchall: unknown keys are stripped (accepted); `never`: refused; anything else is not modelled.
    if (catchall !== undefined && catchall !== 'never') return NEVER;
    const members = Object.entries(def.shape as Record<string, z.ZodType>).map(([key, schema]): Member => {
      const memberDef = schema._zod.def as Def;
      const optional = memberDef.type === 'optional' || (memberDef.type === 'default' && !this.options.exact);
      return { key, optional, shape: this.read(optional ? memberDef.innerType : schema) };
    });
    return { kind: 'object', strict: catchall === 'never' || this.options.exact === true, members };
  }

  private union(def: Def): Shape {
    const schemas: z.ZodType[] = def.options;
    const tag = def.discriminator as string | undefined;
    if (tag === undefined) return { kind: 'union', options: schemas.map((option) => this.read(option)) };
    const options = new Map<unknown, Shape>();
    for (const option of schemas) {
      const tagDef = ((option._zod.def as Def).shape?.[tag] as z.ZodType | undefined)?._zod.def as Def | undefined;
      if (tagDef?.type !== 'literal') return NEVER;
      const shape = this.read(option);
      // zod picks the first option a tag value names.
      for (const literal of tagDef.values as unknown[]) if (!options.has(literal)) options.set(literal, shape);
    }
    return { kind: 'tagged', tag, options };
  }
}

/** The modelled shape of `schema`. */
export function readShape(schema: z.ZodType, options: ShapeOptions = {}): Shape {
  return new ShapeReader(options).read(schema);
}
