/**
 * What a field's `references` adds to the rest of an entity (docs/entities.md#relations): a
 * reference field is filterable by `equals` and `in` even when the data block does not list it,
 * since `migrate` indexes it anyway (docs/decisions/B29.md).
 */

/** The filtering part of a data block, as list parsing and OpenAPI read it. */
export interface Filtering {
  allowedFields: readonly string[];
  operators: Readonly<Record<string, readonly string[]>>;
}

/** The structural parts of an entity this module reads. */
interface FilterableEntity {
  fields: Readonly<Record<string, { references?: unknown }>>;
  data?: { filtering?: { allowedFields?: readonly string[]; operators?: Readonly<Record<string, readonly string[]>> } | undefined } | undefined;
}

/** Operators of a reference field the data block does not list. */
export const REFERENCE_FILTER_OPERATORS = ['equals', 'in'] as const;

/** Names (snake_case) of the fields that declare `references`, in document order. */
export function referenceFieldNames(entity: Pick<FilterableEntity, 'fields'>): string[] {
  return Object.entries(entity.fields).flatMap(([name, field]) => (field.references === undefined ? [] : [name]));
}

/** The data block's filtering, with every reference field it does not list added (operators `equals`, `in`). */
export function filteringOf(entity: FilterableEntity): Filtering {
  const declared = entity.data?.filtering;
  const allowedFields = [...(declared?.allowedFields ?? [])];
  const operators: Record<string, readonly string[]> = { ...(declared?.operators ?? {}) };
  for (const name of referenceFieldNames(entity)) {
    if (allowedFields.includes(name)) continue;
    allowedFields.push(name);
    operators[name] = REFERENCE_FILTER_OPERATORS;
  }
  return { allowedFields, operators };
}
