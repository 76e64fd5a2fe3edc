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

/**
 * Why a state is missing: the record is absent or in another scope (404), the version lies past
 * its current one (404), the instant precedes its creation (404), or retention removed it (410).
 * Read only when the state itself was not found, so the common read is one row.
 */
async function missingState(ctx: ServiceContext, scope: RecordScope, id: string, wanted: { version: number } | { asOf: string }): Promise<CellgateError> {
  const current = await ctx.storage.get(ctx.model, scope, id);
  if (current === null) return notFound();
  if ('version' in wanted && wanted.version > current.version) {
    return new CellgateError('NOT_FOUND', `The record has no version ${wanted.version}`, {
      details: { version: wanted.version, currentVersion: current.version },
    });
  }
  if ('asOf' in wanted && wanted.asOf < current.createdAt) {
    return new CellgateError('NOT_FOUND', 'The record did not exist yet at that instant', { details: { asOf: wanted.asOf } });
  }
  return historyPurged(wanted);
}

/**
 * The stored state of version `version` (one row: every version's full state is stored, the
 * current one included): 404 past the current version, 410 when retention removed it.
 */
export async function stateAtVersion(ctx: ServiceContext, scope: RecordScope, id: string, version: number): Promise<StoredRecord> {
  const state = await ctx.storage.getVersionState(ctx.model, scope, id, version);
  if (state === null) throw await missingState(ctx, scope, id, { version });
  return state;
}

/** The state current at `at` (one index probe): 404 before the record was created, 410 when that state was purged. */
export async function stateAtInstant(ctx: ServiceContext, scope: RecordScope, id: string, at: string): Promise<StoredRecord> {
  const state = await ctx.storage.getVersionStateAt(ctx.model, scope, id, at);
  if (state === null) throw await missingState(ctx, scope, id, { asOf: at });
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
