/**
 * Time travel for the memory driver (docs/time-travel.md): the state of a record current at an
 * instant, found from the record's current version downwards. States are full snapshots and
 * their times grow with their versions, so the walk stops at the first state recorded at or
 * before the instant; it visits the versions written after the instant (a test and demo driver:
 * the SQL drivers answer with one index probe).
 */
import type { RecordScope, StoredRecord, VersionStateAt } from '../types.ts';
import { inScope } from './list.ts';

/** Reads the stored state of one version of the record, or undefined. */
export type VersionLookup = (version: number) => StoredRecord | undefined;

/** The state of `current`'s record current at `at` within `scope`, or null (none stored that old). */
export function stateAt(current: StoredRecord | undefined, lookup: VersionLookup, scope: RecordScope, at: string): StoredRecord | null {
  if (current === undefined || !inScope(current, scope) || current.createdAt > at) return null;
  for (let version = current.version; version >= 1; version -= 1) {
    const state = lookup(version);
    if (state !== undefined && state.updatedAt <= at) return inScope(state, scope) ? state : null;
  }
  return null;
}

/**
 * The states current at `at` of the records in `records` (any order) created by then, ascending by
 * id after `after`, at most `limit`; `state` null where no state that old is stored.
 */
export function statesAt(
  records: Iterable<StoredRecord>,
  lookupOf: (id: string) => VersionLookup,
  scope: RecordScope,
  at: string,
  after: string | null,
  limit: number,
): VersionStateAt[] {
  const candidates = [...records].filter((record) => (after === null || record.id > after) && inScope(record, scope) && record.createdAt <= at);
  candidates.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return candidates.slice(0, limit).map((record) => ({ id: record.id, state: stateAt(record, lookupOf(record.id), scope, at) }));
}
