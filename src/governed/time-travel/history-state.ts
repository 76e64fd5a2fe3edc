/**
 * What every time-travel read shares (docs/time-travel.md): its access rule, the stored state of
 * a record at a version or an instant with its refusals (404 never existed, 410 purged), and the
 * one rendering of a historical state for a reader.
 */
import { CellgateError } from '../../errors.ts';
import type { RecordScope, StoredRecord } from '../../storage/types.ts';
import { authorize } from '../access.ts';
import { notFound, viewFor, type ServiceContext } from '../service-context.ts';
import type { GovernedContext, HistoricalView } from '../types.ts';

/**
 * Access of a time-travel read: the history access of `/versions` (view, `audit:read`, the plan),
 * and a tier that keeps history (tier-3 stores no usable history: 422, as for rollback).
 */
export function timeTravelAccess(ctx: ServiceContext, context: GovernedContext, scope: RecordScope): void {
  if (ctx.tier === 'tier-3') throw new CellgateError('TIME_TRAVEL_DISABLED', 'Time travel is disabled for tier-3 entities (minimal history)');
  authorize(context.actor, ctx.policy, scope.workspaceId, 'history');
}

/** 410 for a state that retention or the purge of history removed. */
export const historyPurged = (details: Record<string, unknown>): CellgateError =>
  new CellgateError('HISTORY_PURGED', 'That part of the history was removed by the retention policy', { details });

/** The record as it is now, deleted or not: 404 when absent or in another scope. */
export async function currentRecord(ctx: ServiceContext, scope: RecordScope, id: string): Promise<StoredRecord> {
  const current = await ctx.storage.get(ctx.model, scope, id);
  if (current === null) throw notFound();
  return current;
}

/** The stored state of version `version`: 404 past the current version, 410 when purged. */
export async function stateAtVersion(ctx: ServiceContext, scope: RecordScope, current: StoredRecord, version: number): Promise<StoredRecord> {
  if (version > current.version) {
    throw new CellgateError('NOT_FOUND', `The record has no version ${version}`, { details: { version, currentVersion: current.version } });
  }
  const state = version === current.version ? current : await ctx.storage.getVersionState(ctx.model, scope, current.id, version);
  if (state === null) throw historyPurged({ version });
  return state;
}

/** The state current at `at`: 404 before the record was created, 410 when that state was purged. */
export async function stateAtInstant(ctx: ServiceContext, scope: RecordScope, current: StoredRecord, at: string): Promise<StoredRecord> {
  if (at < current.createdAt) throw new CellgateError('NOT_FOUND', 'The record did not exist yet at that instant', { details: { asOf: at } });
  // The current state answers every instant since its write without a second read.
  if (at >= current.updatedAt) return current;
  const state = await ctx.storage.getVersionStateAt(ctx.model, scope, current.id, at);
  if (state === null) throw historyPurged({ asOf: at });
  return state;
}

/**
 * A historical state as the caller may see it: the same per-reader view a GET renders (so field
 * access and redaction reach history through one path), with the instant it was read at.
 */
export function historicalView(ctx: ServiceContext, context: GovernedContext, state: StoredRecord, asOf: string): HistoricalView {
  const view = viewFor(ctx, context, state);
  return { data: view.data, meta: { ...view.meta, asOf } };
}
