/** Rules over the fields of an entity, applied recursively to the fields of object fields. */
import type { FieldDefinition } from '../../schema/index.ts';
import { BASE_FIELD_KEYS, keyed, repeatedValues } from './helpers.ts';
import { rule } from './types.ts';

/** Deepest level at which an object field may appear (a top-level field is level 1). */
export const MAX_OBJECT_DEPTH = 3;

/** A field with its dotted key path (`address.street`) and level. */
interface FieldVisit {
  field: FieldDefinition;
  path: string;
  depth: number;
}

/** Appends every field of `fields` to `out`, parents before children. */
function collect(fields: readonly FieldDefinition[], prefix: string, depth: number, out: FieldVisit[]): FieldVisit[] {
  for (const field of fields) {
    const path = `${prefix}${field.key}`;
    out.push({ field, path, depth });
    if (field.fields) collect(field.fields, `${path}.`, depth + 1, out);
  }
  return out;
}

// The four field rules walk the same tree; it is flattened once per parsed entity.
const visitCache = new WeakMap<readonly FieldDefinition[], FieldVisit[]>();

/** Every field of an entity with its key path and level, computed once per parsed entity. */
function visits(fields: readonly FieldDefinition[]): FieldVisit[] {
  let cached = visitCache.get(fields);
  if (cached === undefined) visitCache.set(fields, (cached = collect(fields, '', 1, [])));
  return cached;
}

/** Every sibling list of fields (the entity's, then each object field's), with its key-path prefix. */
function* siblingLists(fields: readonly FieldDefinition[], prefix = ''): Generator<{ fields: readonly FieldDefinition[]; prefix: string }> {
  yield { fields, prefix };
  for (const field of fields) if (field.fields) yield* siblingLists(field.fields, `${prefix}${field.key}.`);
}

/** A rule over each field alone: `problem` answers the message, or `undefined` when the field is fine. */
const fieldRule = (id: string, description: string, problem: (visit: FieldVisit) => string | undefined) =>
  rule({
    id,
    scope: 'entity',
    description,
    check: ({ entity, at }, report) => {
      // The path is built only for a field that has the problem: this runs for every field of every entity.
      for (const visit of visits(entity.fields)) {
        const message = problem(visit);
        if (message !== undefined) report(keyed(`${at}.fields`, visit.path), message);
      }
    },
  });

/** Field rules, in the order they run. */
export const fieldRules = [
  rule({
    id: 'field.unique-keys',
    scope: 'entity',
    description: 'Field keys are unique within an entity (and within each object field).',
    check: ({ entity, at }, report) => {
      for (const { fields, prefix } of siblingLists(entity.fields)) {
        for (const key of repeatedValues(fields.map((field) => field.key))) {
          report(keyed(`${at}.fields`, `${prefix}${key}`), `Duplicate field key: "${key}"`);
        }
      }
    },
  }),
  fieldRule('field.enum-values', 'Enum fields declare a non-empty `enumValues`.', ({ field }) =>
    field.type === 'enum' && (field.enumValues === undefined || field.enumValues.length === 0) ? 'Enum field must have non-empty enumValues' : undefined,
  ),
  fieldRule('field.max-depth', `Object fields nest at most ${MAX_OBJECT_DEPTH} levels deep.`, ({ field, depth }) =>
    field.type === 'object' && depth >= MAX_OBJECT_DEPTH ? `Object field "${field.key}" exceeds max nesting depth of ${MAX_OBJECT_DEPTH}` : undefined,
  ),
  fieldRule('field.not-base', 'Field keys do not shadow base entity fields (id, version, createdAt, updatedAt and similar), at any depth.', ({ field }) =>
    BASE_FIELD_KEYS.has(field.key)
      ? `Field key "${field.key}" is reserved by the base entity and is automatically injected. Remove it from the manifest.`
      : undefined,
  ),
];
