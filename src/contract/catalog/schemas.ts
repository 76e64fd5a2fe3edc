/**
 * Shapes of the UI primitive catalog (docs/contract-conventions.md#primitive-catalog, docs/decisions/A08.md–docs/decisions/A10.md): one zod schema per
 * shape, reused for validation, TypeScript types, JSON Schema/OpenAPI and MCP tool schemas.
 */
import { z } from 'zod';
import { list } from '../schema/common.ts';

/** The seven categories of the core catalog, in catalog order. */
export const CORE_CATEGORIES = ['collection', 'input', 'form', 'layout', 'page', 'display', 'feedback'] as const;

/**
 * Every category a primitive may carry: the seven core ones plus `custom`, the default of a
 * project-specific primitive that does not fit a core category.
 */
export const PRIMITIVE_CATEGORIES = [...CORE_CATEGORIES, 'custom'] as const;

/** Where a catalog entry comes from. */
export const PRIMITIVE_SOURCES = ['core', 'custom'] as const;

/** A primitive category. */
export const PrimitiveCategorySchema = z.enum(PRIMITIVE_CATEGORIES).meta({ id: 'PrimitiveCategory' });
/** `core` (shipped with cellgate) or `custom` (registered by the host project). */
export const PrimitiveSourceSchema = z.enum(PRIMITIVE_SOURCES).meta({ id: 'PrimitiveSource' });

/** A custom primitive key: lower-case kebab-case, so it is also a safe file name. */
export const PrimitiveKeySchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, { error: 'Must start with a lowercase letter and contain only lowercase letters, digits or hyphens (e.g. "price-tag")' });

/** A semantic version `MAJOR.MINOR.PATCH` with optional pre-release and build parts. */
export const SemverSchema = z
  .string()
  .regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, { error: 'Must be a semantic version such as "1.0.0"' });

/** The value types a custom primitive prop may declare. */
export const PROP_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'function', 'node'] as const;

/** One prop of a custom primitive. `function` and `node` props are render-time values with no JSON form. */
export interface PropDefinition {
  type: (typeof PROP_TYPES)[number];
  description?: string | undefined;
  required?: boolean | undefined;
  default?: unknown;
  enum?: string[] | undefined;
  items?: PropDefinition | undefined;
  properties?: Record<string, PropDefinition> | undefined;
}

/** One prop declaration of a custom primitive contract (recursive through `items` and `properties`). */
export const PropDefinitionSchema: z.ZodType<PropDefinition> = z
  .strictObject({
    type: z.enum(PROP_TYPES),
    description: z.string().optional(),
    required: z.boolean().optional().describe('Shorthand for listing the prop in the enclosing `required` array.'),
    default: z.unknown().optional(),
    enum: list(z.string()).min(1).optional(),
    get items() {
      return PropDefinitionSchema.optional();
    },
    get properties() {
      return z.record(z.string(), PropDefinitionSchema).optional();
    },
  })
  .meta({ id: 'PropDefinition' });

/** The props of a custom primitive: an object schema. */
export const PrimitivePropsSchema = z
  .strictObject({
    type: z.literal('object'),
    properties: z.record(z.string(), PropDefinitionSchema),
    required: list(z.string()).optional(),
  })
  .superRefine((props, ctx) => {
    for (const [index, name] of (props.required ?? []).entries()) {
      if (!(name in props.properties)) {
        ctx.addIssue({ code: 'custom', path: ['required', index], message: `Required prop "${name}" is not declared in properties` });
      }
    }
  })
  .meta({ id: 'PrimitiveProps' });

/** A slot of a custom primitive that pages may fill. */
export const PrimitiveSlotSchema = z
  .strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    allowedModes: z
      .array(z.enum(['replace', 'prepend', 'append']))
      .min(1)
      .refine((modes) => new Set(modes).size === modes.length, { error: 'allowedModes must be unique' })
      .default(['replace', 'prepend', 'append']),
  })
  .meta({ id: 'PrimitiveSlot' });

/** A named set of props showing one way to use a primitive. */
export const PrimitiveExampleSchema = z
  .strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    props: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'PrimitiveExample' });

/** The contract of a custom primitive (docs/decisions/A09.md). */
export const PrimitiveContractSchema = z
  .strictObject({
    key: PrimitiveKeySchema,
    version: SemverSchema,
    label: z.string().min(1),
    description: z.string().optional(),
    category: PrimitiveCategorySchema.default('custom'),
    props: PrimitivePropsSchema,
    slots: list(PrimitiveSlotSchema).optional(),
    examples: list(PrimitiveExampleSchema).optional().describe('Example props; when absent one example is derived from the props schema.'),
  })
  .superRefine((contract, ctx) => {
    const seen = new Set<string>();
    for (const [index, slot] of (contract.slots ?? []).entries()) {
      if (seen.has(slot.name)) ctx.addIssue({ code: 'custom', path: ['slots', index, 'name'], message: `Duplicate slot name: "${slot.name}"` });
      seen.add(slot.name);
    }
  })
  .meta({ id: 'PrimitiveContract' });

const entryBase = {
  key: z.string(),
  category: PrimitiveCategorySchema,
  description: z.string(),
  bestFor: z.array(z.string()).describe('Situations the primitive suits.'),
  avoidWhen: z.array(z.string()).optional().describe('Situations where another primitive fits better.'),
};

/** A core catalog entry. */
export const CorePrimitiveEntrySchema = z
  .strictObject({ ...entryBase, bestFor: entryBase.bestFor.min(1), source: z.literal('core') })
  .meta({ id: 'CorePrimitiveEntry' });

/** A custom (project-specific) catalog entry. */
export const CustomPrimitiveEntrySchema = z
  .strictObject({
    ...entryBase,
    source: z.literal('custom'),
    version: SemverSchema,
    label: z.string(),
    contract: PrimitiveContractSchema,
    slots: z.array(PrimitiveSlotSchema).optional(),
  })
  .meta({ id: 'CustomPrimitiveEntry' });

/** One entry of `GET /api/primitives` / `list_primitives`. */
export const PrimitiveEntrySchema = z.discriminatedUnion('source', [CorePrimitiveEntrySchema, CustomPrimitiveEntrySchema]).meta({ id: 'PrimitiveEntry' });

/** The catalog listing. */
export const PrimitiveListSchema = z.array(PrimitiveEntrySchema).meta({ id: 'PrimitiveList' });

const jsonSchemaObject = z.record(z.string(), z.unknown()).describe('JSON Schema (draft 2020-12) of the props.');

/** One primitive as `GET /api/primitives/{key}` answers it: the entry plus the JSON Schema of its props. */
export const PrimitiveDetailSchema = z
  .discriminatedUnion('source', [
    CorePrimitiveEntrySchema.extend({ propsSchema: jsonSchemaObject }),
    CustomPrimitiveEntrySchema.extend({ propsSchema: jsonSchemaObject }),
  ])
  .meta({ id: 'PrimitiveDetail' });

/** Filters of the listing (`?category=&source=`). Values are checked by the registry for a clear message. */
export const PrimitiveListQuerySchema = z.object({
  category: z
    .string()
    .optional()
    .describe(`One of: ${PRIMITIVE_CATEGORIES.join(', ')}.`),
  source: z
    .string()
    .optional()
    .describe(`One of: ${PRIMITIVE_SOURCES.join(', ')}.`),
});

/** Arguments of `get_primitive_examples`. */
export const PrimitiveExamplesRequestSchema = z.object({
  key: z.string().min(1).describe('Primitive key, e.g. "data-grid".'),
  version: z.string().optional().describe('Version of a custom primitive; omit for core primitives and for the newest version.'),
});

/** Answer of `get_primitive_examples`. */
export const PrimitiveExamplesSchema = z
  .object({ key: z.string(), version: z.string().optional(), examples: z.array(PrimitiveExampleSchema).min(1) })
  .meta({ id: 'PrimitiveExamples' });

/** Arguments of `validate_primitive_props`. */
export const ValidatePropsRequestSchema = PrimitiveExamplesRequestSchema.extend({
  props: z.record(z.string(), z.unknown()).describe('The props object to check.'),
});

/** Arguments of `scaffold_primitive`. */
export const ScaffoldRequestSchema = z
  .strictObject({
    name: PrimitiveKeySchema.describe('Key of the new primitive, kebab-case (e.g. "price-tag").'),
    label: z.string().min(1).describe('Human-readable name.'),
    description: z.string().optional(),
    category: PrimitiveCategorySchema.optional().describe('Defaults to "custom".'),
    props: PrimitivePropsSchema.optional().describe('Props object schema; defaults to no props.'),
  })
  .meta({ id: 'ScaffoldPrimitiveRequest' });

/** One file of a scaffold, path relative to the project folder. */
export const ScaffoldFileSchema = z.object({ path: z.string(), content: z.string() }).meta({ id: 'ScaffoldFile' });

/** Answer of `scaffold_primitive`. */
export const ScaffoldResultSchema = z
  .object({
    contract: PrimitiveContractSchema,
    files: z.array(ScaffoldFileSchema),
    written: z.boolean().describe('True when the files were written into the project folder (local mode).'),
  })
  .meta({ id: 'ScaffoldPrimitiveResult' });

/** A primitive category. */
export type PrimitiveCategory = z.infer<typeof PrimitiveCategorySchema>;
/** `core` or `custom`. */
export type PrimitiveSource = z.infer<typeof PrimitiveSourceSchema>;
/** A custom primitive contract after defaults are applied. */
export type PrimitiveContract = z.infer<typeof PrimitiveContractSchema>;
/** A custom primitive contract as a host writes it (defaults optional). */
export type PrimitiveContractInput = z.input<typeof PrimitiveContractSchema>;
/** A core catalog entry. */
export type CorePrimitiveEntry = z.infer<typeof CorePrimitiveEntrySchema>;
/** A custom catalog entry. */
export type CustomPrimitiveEntry = z.infer<typeof CustomPrimitiveEntrySchema>;
/** A catalog entry. */
export type PrimitiveEntry = z.infer<typeof PrimitiveEntrySchema>;
/** A catalog entry with the JSON Schema of its props. */
export type PrimitiveDetail = z.infer<typeof PrimitiveDetailSchema>;
/** An example of a primitive's props. */
export type PrimitiveExample = z.infer<typeof PrimitiveExampleSchema>;
/** Answer of `examples()`. */
export type PrimitiveExamples = z.infer<typeof PrimitiveExamplesSchema>;
/** Argument of `scaffold()`. */
export type ScaffoldRequest = z.infer<typeof ScaffoldRequestSchema>;
/** Answer of `scaffold()`. */
export type ScaffoldResult = z.infer<typeof ScaffoldResultSchema>;
