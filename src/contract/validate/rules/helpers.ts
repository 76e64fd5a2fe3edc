/** Small helpers shared by the rule groups. */

/** Appends a bracket key to a path: `at[key]`. */
export const keyed = (at: string, key: string): string => `${at}[${key}]`;

/** Each value that already occurred earlier in `values`, once per repeat, in order. */
export function repeats(values: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const value of values) {
    if (seen.has(value)) out.push(value);
    else seen.add(value);
  }
  return out;
}

/** Field keys maintained by the base entity; a manifest may not declare them (camelCase and snake_case forms). */
export const BASE_FIELD_KEYS: ReadonlySet<string> = new Set([
  'id',
  'version',
  'createdAt',
  'createdBy',
  'updatedAt',
  'updatedBy',
  'deletedAt',
  'deletedBy',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'deleted_at',
  'deleted_by',
]);

/** `"a", "b"` → `a, b` for messages listing allowed values. */
export const listOf = (values: readonly string[]): string => values.join(', ');
