/** `CapabilityDefinition`: a user-facing action of an entity (docs/decisions/A05.md), told apart by `type`. */
import { z } from 'zod';
import { labelled, list, nonEmptyString, snakeKey } from './common.ts';

/** Input types of a capability. */
export const CAPABILITY_INPUT_TYPES = ['string', 'text', 'number', 'boolean', 'date', 'select', 'entity'] as const;

/** One input a capability asks for. */
export const CapabilityInputSchema = z
  .strictObject({
    key: nonEmptyString().describe('Input key, unique within the capability.'),
    type: z.enum(CAPABILITY_INPUT_TYPES).describe('Input type.'),
    label: z.string().optional().describe('Label shown to the user.'),
    required: z.boolean().optional().describe('Whether a value must be given.'),
    options: list(z.string()).optional().describe('Choices of a select input; non-empty and unique.'),
    entity: nonEmptyString().optional().describe('Target entity key of an entity input (required there).'),
    defaultValue: z.union([z.string(), z.number(), z.boolean()]).optional().describe('Initial value; for a select, one of `options`.'),
  })
  .meta({ id: 'CapabilityInputDefinition', description: 'An input field of a capability.' });

const base = {
  key: snakeKey().describe('snake_case key, unique within the entity.'),
  name: z.string().optional().describe('Display name.'),
  description: z.string().optional().describe('What the action does.'),
  scope: nonEmptyString().optional().describe('Permission scope; defaults to `<entityKey>.<capabilityKey>`.'),
  input: list(CapabilityInputSchema).optional().describe('Input fields.'),
};

/** Each capability type with its purpose; read by the schema description. */
export const CAPABILITY_TYPES = {
  transition: 'Triggers a lifecycle transition of the record.',
  mutation: 'Changes data of the record.',
  workflow: 'Starts an asynchronous workflow.',
  export: 'Exports data in a file format.',
  integration: 'Calls an external system.',
} as const;

/** The capability variants, one strict object per type. */
export const CapabilityVariants = [
  z.strictObject({ ...base, type: z.literal('transition'), transition: nonEmptyString().describe('Lifecycle transition key; required for type transition.') }),
  z.strictObject({ ...base, type: z.literal('mutation') }),
  z.strictObject({ ...base, type: z.literal('workflow') }),
  z.strictObject({ ...base, type: z.literal('export'), format: z.enum(['pdf', 'csv', 'xlsx', 'json']).describe('Export format; required for type export.') }),
  z.strictObject({ ...base, type: z.literal('integration'), target: nonEmptyString().describe('Integration target; required for type integration.') }),
] as const;

/** `CapabilityDefinition`. */
export const CapabilityDefinitionSchema = z
  .discriminatedUnion('type', [...CapabilityVariants])
  .meta({ id: 'CapabilityDefinition', description: 'A user-facing action: transition, mutation, workflow, export or integration.' });

/** The capability type enum, as printed in schema descriptions. */
export const CapabilityTypeSchema = labelled(
  z.enum(Object.keys(CAPABILITY_TYPES) as [CapabilityType, ...CapabilityType[]]).describe('transition, mutation, workflow, export or integration.'),
  'CapabilityType',
);

/** A capability type name. */
export type CapabilityType = keyof typeof CAPABILITY_TYPES;
/** Inferred type of a capability. */
export type CapabilityDefinition = z.infer<typeof CapabilityDefinitionSchema>;
/** Inferred type of a capability input. */
export type CapabilityInput = z.infer<typeof CapabilityInputSchema>;
