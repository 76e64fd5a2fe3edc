/**
 * Compiles the props declaration of a custom primitive contract into a zod schema, so core and
 * custom props go through the same check (`validateProps`) and the same JSON Schema export.
 */
import { z } from 'zod';
import type { PropDefinition } from './schemas.ts';

/** Render-time values (callbacks, rendered nodes) have no JSON form to check: anything is accepted. */
const opaque = z.unknown();

function compileProp(definition: PropDefinition): z.ZodType {
  let schema: z.ZodType;
  switch (definition.type) {
    case 'string':
      schema = definition.enum ? z.enum(definition.enum as [string, ...string[]]) : z.string();
      break;
    case 'number':
      schema = z.number();
      break;
    case 'integer':
      schema = z.number().int();
      break;
    case 'boolean':
      schema = z.boolean();
      break;
    case 'array':
      schema = z.array(definition.items ? compileProp(definition.items) : z.unknown());
      break;
    case 'object':
      schema = definition.properties ? compileObject(definition.properties, undefined) : z.record(z.string(), z.unknown());
      break;
    default:
      schema = opaque;
  }
  return definition.description ? schema.describe(definition.description) : schema;
}

/**
 * A strict object of the declared props. A prop is required when listed in `required` or marked
 * `required: true`; everything else is optional.
 */
export function compileObject(properties: Record<string, PropDefinition>, required: readonly string[] | undefined): z.ZodObject {
  const requiredSet = new Set(required ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, definition] of Object.entries(properties)) {
    const schema = compileProp(definition);
    shape[name] = requiredSet.has(name) || definition.required === true ? schema : schema.optional();
  }
  return z.strictObject(shape);
}

/** A placeholder value of the right type, used to derive an example when a contract has none. */
export function sampleValue(definition: PropDefinition, name: string): unknown {
  if (definition.default !== undefined) return definition.default;
  switch (definition.type) {
    case 'string':
      return definition.enum?.[0] ?? `Sample ${name}`;
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return definition.items ? [sampleValue(definition.items, name)] : [];
    case 'object':
      return Object.fromEntries(Object.entries(definition.properties ?? {}).map(([key, inner]) => [key, sampleValue(inner, key)]));
    default:
      return undefined;
  }
}
