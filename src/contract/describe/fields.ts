/**
 * Derives the `fields` of a schema description from a zod object schema: member name, a human type
 * string, whether it is required and its `.describe()` text. Nothing is written twice.
 */
import { z } from 'zod';
import { typeLabels } from '../schema/common.ts';
import type { SchemaField } from './shapes.ts';

type Schema = z.core.$ZodType;

/** The schema and its ancestors (`.describe()`/`.meta()` clone a schema and keep a `parent` link). */
function* lineage(schema: Schema): Generator<Schema> {
  for (let current: Schema | undefined = schema; current !== undefined; current = current._zod.parent) yield current;
}

function registeredId(schema: Schema): string | undefined {
  for (const ancestor of lineage(schema)) {
    const id = z.globalRegistry.get(ancestor)?.id;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

/** Wrappers whose inner schema carries the meaning. */
function innerOf(schema: Schema): Schema | undefined {
  const def = schema._zod.def as { type: string; innerType?: Schema };
  return ['optional', 'default', 'prefault', 'nullable', 'readonly', 'nonoptional'].includes(def.type) ? def.innerType : undefined;
}

/** The human type of a schema: a label, a registered id, or a structural rendering. */
export function typeString(schema: Schema): string {
  const label = typeLabels.get(schema)?.label;
  if (label !== undefined) return label;
  const inner = innerOf(schema);
  if (inner !== undefined) return typeString(inner);
  const id = registeredId(schema);
  if (id !== undefined) return id;
  const def = schema._zod.def as { type: string; values?: unknown[]; entries?: Record<string, string>; element?: Schema; options?: Schema[] };
  switch (def.type) {
    case 'literal':
      return `literal(${(def.values ?? []).map((value) => JSON.stringify(value)).join(' | ')})`;
    case 'enum':
      return Object.values(def.entries ?? {}).join(' | ');
    case 'array':
      return def.element ? `${typeString(def.element)}[]` : 'array';
    case 'union':
      return (def.options ?? []).map(typeString).join(' | ');
    case 'record':
      return 'map string to any';
    default:
      return def.type;
  }
}

/** The `.describe()` text of a member, looking through optional/default wrappers. */
export function descriptionOf(schema: Schema): string {
  for (let current: Schema | undefined = schema; current !== undefined; current = innerOf(current)) {
    const description = z.globalRegistry.get(current)?.description;
    if (description !== undefined) return description;
  }
  return '';
}

/** One described member. */
export function describeMember(key: string, schema: Schema, required = schema._zod.optin === undefined): SchemaField {
  return { key, type: typeString(schema), required, description: descriptionOf(schema) };
}

/** Every member of an object schema, in declaration order. */
export function describeShape(shape: Readonly<Record<string, Schema>>): SchemaField[] {
  return Object.entries(shape).map(([key, schema]) => describeMember(key, schema));
}
