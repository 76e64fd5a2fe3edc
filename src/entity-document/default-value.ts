/**
 * The value a field default gives (docs/decisions/B31.md), without the schema: the governed codec
 * fills creates with it and the storage drivers backfill stored rows with it, so both read a
 * default the same way. Free of zod so the drivers' import graph stays small.
 */
import type { StorageFieldDefault } from '../storage/types.ts';

/** The generators a default may name. */
export const DEFAULT_GENERATORS = ['now', 'uuid'] as const;

/** A generated default: `now` (the ISO 8601 UTC time of the write) or `uuid` (a random UUID v4). */
export interface DefaultGenerator {
  $generate: (typeof DEFAULT_GENERATORS)[number];
}

/** True when `value` is a generator (an object with a `$generate` member), not a constant. */
export function isDefaultGenerator(value: unknown): value is DefaultGenerator {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, '$generate');
}

/**
 * The value a default gives now: the constant itself (a fresh copy, so no record shares an object
 * with the entity document), the current time, or a new UUID.
 */
export function defaultValue(value: StorageFieldDefault): unknown {
  if (!isDefaultGenerator(value)) return typeof value === 'object' && value !== null ? structuredClone(value) : value;
  return value.$generate === 'now' ? new Date().toISOString() : crypto.randomUUID();
}
