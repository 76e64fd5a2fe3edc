/**
 * One record through time (docs/time-travel.md): `GET …/{id}/versions/{n}`, `GET …/{id}?asOf=`
 * and `GET …/{id}/changes?from=&to=`. Each reads one stored state (two for changes), and the
 * current record only to explain a missing one: a bounded number of rows whatever the length of
 * the history.
 */
import { diffStates } from '../audit/index.ts';
import type { ServiceOperation } from '../service-context.ts';
import type { ChangesView, HistoricalView } from '../types.ts';
import { historicalView, stateAtInstant, stateAtVersion, timeTravelAccess } from './history-state.ts';

/** Parsed input of `versions/{n}`. */
export interface VersionAtInput {
  id: string;
  version: number;
}

/** Parsed input of a record read as of an instant. */
export interface AsOfInput {
  id: string;
  /** ISO 8601 UTC, as `Date#toISOString()` writes it. */
  asOf: string;
}

/** Parsed input of `changes`. */
export interface ChangesInput {
  id: string;
  from: number;
  to: number;
}

/** The record at version `n`. */
export const versionAtOperation: ServiceOperation<VersionAtInput, HistoricalView> = {
  access: (ctx, context, scope) => timeTravelAccess(ctx, context, scope),
  async run(ctx, context, scope, { id, version }) {
    const state = await stateAtVersion(ctx, scope, id, version);
    return historicalView(ctx, context, state, state.updatedAt);
  },
};

/** The record as it was at an instant (a soft-deleted state shows `deletedAt`). */
export const asOfOperation: ServiceOperation<AsOfInput, HistoricalView> = {
  access: (ctx, context, scope) => timeTravelAccess(ctx, context, scope),
  async run(ctx, context, scope, { id, asOf }) {
    const state = await stateAtInstant(ctx, scope, id, asOf);
    return historicalView(ctx, context, state, asOf);
  },
};

/**
 * The patch that turns version `from` into version `to` (either direction), computed from the two
 * states as the caller sees them, so applying it to `versions/{from}` gives `versions/{to}` exactly
 * and it never carries a value the caller could not read there.
 */
export const changesOperation: ServiceOperation<ChangesInput, ChangesView> = {
  access: (ctx, context, scope) => timeTravelAccess(ctx, context, scope),
  async run(ctx, context, scope, { id, from, to }) {
    const [before, after] = await Promise.all([stateAtVersion(ctx, scope, id, from), stateAtVersion(ctx, scope, id, to)]);
    const patch = diffStates(
      historicalView(ctx, context, before, before.updatedAt).data as Record<string, unknown>,
      historicalView(ctx, context, after, after.updatedAt).data as Record<string, unknown>,
    );
    return { data: patch, meta: { from, to } };
  },
};
