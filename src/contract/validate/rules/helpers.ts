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

const NONE: readonly string[] = Object.freeze([]);

/** Lists longer than this are checked with a `Set`; shorter ones (nearly all) without allocating. */
const PAIRWISE_MAX = 32;

/**
 * Each value that occurs more than once in `values`, once, in the order of its first repeat (the
 * distinct values of {@link repeats}). The rules run on every valid document, where nothing
 * repeats: then nothing is allocated for a short list.
 */
export function repeatedValues(values: readonly string[]): readonly string[] {
  if (values.length > PAIRWISE_MAX) return [...new Set(repeats(values))];
  let out: string[] | undefined;
  for (let i = 1; i < values.length; i++) {
    const value = values[i]!;
    if (values.indexOf(value) < i && !out?.includes(value)) (out ??= []).push(value);
  }
  return out ?? NONE;
}

/** True when some value occurs more than once in `values`. */
export const hasRepeats = (values: readonly string[]): boolean => repeatedValues(values).length > 0;

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
