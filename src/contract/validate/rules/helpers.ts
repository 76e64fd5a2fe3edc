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
export const PAIRWISE_MAX = 32;

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

/**
 * True when two of `items` have the same `name` member: {@link hasRepeats} over `items.map(name)`
 * without building that list (pairwise for a short list, a `Set` for a long one).
 */
export function repeatsMember<K extends string, T extends { readonly [P in K]: string }>(items: readonly T[], name: K): boolean {
  if (items.length > PAIRWISE_MAX) return new Set(items.map((item) => item[name])).size !== items.length;
  // Nearly every call asks for `key`: a named load there, not a generic keyed one per comparison.
  if (name === 'key') return repeatsKey(items as unknown as readonly { readonly key: string }[]);
  for (let i = 1; i < items.length; i++) {
    const value = items[i]![name];
    for (let j = 0; j < i; j++) if (items[j]![name] === value) return true;
  }
  return false;
}

/** {@link repeatsMember} of `key` over a short list. */
function repeatsKey(items: readonly { readonly key: string }[]): boolean {
  for (let i = 1; i < items.length; i++) {
    const value = items[i]!.key;
    for (let j = 0; j < i; j++) if (items[j]!.key === value) return true;
  }
  return false;
}

/** The `key`s of a list, for {@link hasKey}: the list itself when short, a `Set` when long. */
export type Keys = readonly { readonly key: string }[] | ReadonlySet<string>;

/** {@link Keys} of `items`: nothing is allocated for a short list, and lookups in a long one stay O(1). */
export const keysOf = (items: readonly { readonly key: string }[]): Keys => (items.length > PAIRWISE_MAX ? new Set(items.map((item) => item.key)) : items);

/** True when `keys` holds `key`. */
export function hasKey(keys: Keys, key: string): boolean {
  if (keys instanceof Set) return keys.has(key);
  for (const item of keys as readonly { readonly key: string }[]) if (item.key === key) return true;
  return false;
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
