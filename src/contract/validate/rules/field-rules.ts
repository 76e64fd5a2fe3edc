/** Rules over the fields of an entity, applied recursively to the fields of object fields. */
import type { FieldDefinition } from '../../schema/index.ts';
import { BASE_FIELD_KEYS, keyed, repeatedValues } from './helpers.ts';
import { rule, type EntitySubject, type FieldVisit } from './types.ts';

/** Deepest level at which an object field may appear (a top-level field is level 1). */
export const MAX_OBJECT_DEPTH = 3;

/** Appends every field of `fields` to `out`, parents before children. */
function collect(fields: readonly FieldDefinition[], prefix: string, depth: number, out: FieldVisit[]): FieldVisit[] {
  for (const field of fields) {
    out.push({ field, prefix, depth });
    if (field.fields) collect(field.fields, `${prefix}${field.key}.`, depth + 1, out);
  }
  return out;
}

/**
 * Every field of an entity with its key-path prefix and level. The four field rules walk the
 * same tree: it is flattened once per subject (kept on the subject, which lives for one
 * validation, rather than in a global weak map that every garbage collection would have to scan).
 */
function visits(subject: EntitySubject): readonly FieldVisit[] {
  return (subject.fieldVisits ??= collect(subject.entity.fields, '', 1, []));
}

/** Calls `each` with every sibling list of fields (the entity's, then each object field's) and its key-path prefix. */
function eachSiblingList(fields: readonly FieldDefinition[], prefix: string, each: (fields: readonly FieldDefinition[], prefix: string) => void): void {
  each(fields, prefix);
  for (const field of fields) if (field.fields) eachSiblingList(field.fields, `${prefix}${field.key}.`, each);
}

/** A rule over each field alone: `problem` answers the message, or `undefined` when the field is fine. */
const fieldRule = (id: string, description: string, problem: (visit: FieldVisit) => string | undefined) =>
  rule({
    id,
    scope: 'entity',
    description,
    check: (subject, report) => {
      // The path is built only for a field that has the problem: this runs for every field of every entity.
      for (const visit of visits(subject)) {
        const message = problem(visit);
        if (message !== undefined) report(keyed(`${subject.at}.fields`, `${visit.prefix}${visit.field.key}`), message);
      }
    },
  });

/** Field rules, in the order they run. */
export const fieldRules = [
  rule({
    id: 'field.unique-keys',
    scope: 'entity',
    description: 'Field keys are unique within an entity (and within each object field).',
    check: ({ entity, at }, report) =>
      eachSiblingList(entity.fields, '', (fields, prefix) => {
        for (const key of repeatedValues(fields.map((field) => field.key))) {
          report(keyed(`${at}.fields`, `${prefix}${key}`), `Duplicate field key: "${key}"`);
        }
      }),
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
