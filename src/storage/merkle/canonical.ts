/**
 * The canonical JSON text of a value, the bytes a log leaf is made of: object members sorted by
 * code unit, no white space, `undefined` members left out, numbers and strings as `JSON.stringify`
 * writes them. Two equal values (whatever their member order, e.g. after a PostgreSQL `jsonb`
 * round trip) give the same text.
 */
export function canonicalText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalText(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value as Record<string, unknown>)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalText((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
