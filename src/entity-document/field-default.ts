/**
 * Field defaults (docs/decisions/B31.md): a field descriptor's `default` is either a constant of the
 * field's type or a generator written `{ "$generate": "now" }` / `{ "$generate": "uuid" }`. A
 * generator is an object with a `$generate` member, so no constant string can be taken for one
 * (`"now"` is the text "now"). A create that omits the field gets the default; `migrate` backfills
 * it into stored rows when a required field with a default is added (docs/evolving-entities.md).
 */
import { z } from 'zod';
import type { ValidationIssue } from '../validation/results.ts';
import { DEFAULT_GENERATORS, isDefaultGenerator } from './default-value.ts';

/** A generated default: `now` (the ISO 8601 UTC time of the write) or `uuid` (a random UUID v4). */
export const DefaultGeneratorSchema = z
  .strictObject({ $generate: z.enum(DEFAULT_GENERATORS).describe('`now`: the time of the write (a `date-time` field); `uuid`: a random UUID.') })
  .meta({ id: 'EntityFieldDefaultGenerator' });

/** A field default: a generator, or any JSON constant (checked against the field's type by the entity rules). */
export const FieldDefaultSchema = z
  .union([DefaultGeneratorSchema, z.json()])
  .describe(
    'Value a create that omits the field gets, and the value `migrate` backfills into stored rows: a constant of the field type, or `{ "$generate": "now" | "uuid" }`.',
  );

/** A field default as declared. */
export type FieldDefault = z.output<typeof FieldDefaultSchema>;

// The canonical form every stored date-time has (`Date#toISOString()`), so a default needs no normalising.
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The field descriptor members a default is judged against. */
interface DefaultedField {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  format?: 'uuid' | 'date-time' | 'email' | 'url' | undefined;
  enum?: readonly string[] | undefined;
  nullable: boolean;
  default?: FieldDefault | undefined;
}

function generatorProblem(field: DefaultedField, generator: { $generate: string }): string | undefined {
  if (generator.$generate === 'now' && (field.type !== 'string' || field.format !== 'date-time'))
    return '{ "$generate": "now" } needs a field of type "string" with format "date-time"';
  if (generator.$generate === 'uuid' && (field.type !== 'string' || (field.format !== undefined && field.format !== 'uuid') || field.enum !== undefined))
    return '{ "$generate": "uuid" } needs a field of type "string" with format "uuid" or no format';
  return undefined;
}

function constantProblem(field: DefaultedField, value: unknown): string | undefined {
  if (value === null) return field.nullable ? undefined : 'null is not allowed: the field is not nullable';
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') return 'Must be a string (the field type)';
      if (field.enum !== undefined && !field.enum.includes(value)) return `Must be one of: ${field.enum.join(', ')}`;
      if (field.format === 'date-time' && (!ISO_UTC.test(value) || new Date(value).toISOString() !== value))
        return 'Must be a date-time in the canonical UTC form (e.g. "2026-01-01T00:00:00.000Z"), or { "$generate": "now" }';
      if (field.format === 'uuid' && (value.length !== 36 || !UUID.test(value))) return 'Must be a UUID, or { "$generate": "uuid" }';
      return undefined;
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : 'Must be an integer (the field type)';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'Must be a number (the field type)';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'Must be a boolean (the field type)';
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : 'Must be an object (the field type)';
    case 'array':
      return Array.isArray(value) ? undefined : 'Must be an array (the field type)';
  }
}

/**
 * Checks the `default` of field `at` (`fields.<name>`): a generator must fit the field, a constant
 * must be a value of its type (enum and canonical formats included). E-mail and URL constants are
 * checked again by the governed codec when a resource is created.
 */
export function checkFieldDefault(at: string, field: DefaultedField, issues: ValidationIssue[]): void {
  if (field.default === undefined) return;
  // `$generate` is reserved for generators, even on an object field: `{ "$generate": "later" }` is a typo, not a constant.
  const problem = !isDefaultGenerator(field.default)
    ? constantProblem(field, field.default)
    : DEFAULT_GENERATORS.includes(field.default.$generate)
      ? generatorProblem(field, field.default)
      : `Unknown generator; use { "$generate": "${DEFAULT_GENERATORS.join('" } or { "$generate": "')}" }`;
  if (problem !== undefined) issues.push({ field: `${at}.default`, message: problem });
}
