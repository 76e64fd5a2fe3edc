/**
 * A collection as it was at an instant (`GET …?asOf=`, docs/time-travel.md): filters, search,
 * sort and paging apply to the states current at that instant, and `total` counts them.
 *
 * Cost model: the storage reads the state at the instant of every record of the scope created by
 * then, in keyset batches of {@link AS_OF_LIST_BATCH} (one index probe per record on SQL), and the
 * process keeps one batch plus the window up to the page, at most {@link AS_OF_LIST_MAX_OFFSET} +
 * a page. Work grows with the number of records in the scope, never with their history or the
 * audit log.
 */
import { CellgateError } from '../../errors.ts';
import { AS_OF_LIST_BATCH, AS_OF_LIST_MAX_OFFSET } from '../../limits.ts';
import { runListQuery } from '../../storage/memory/list.ts';
import type { ListQuery, RecordScope, StoredRecord } from '../../storage/types.ts';
import { listParamsSchema, toListQuery, type ParsedListParams } from '../list-query.ts';
import { parseInput } from '../service-schemas.ts';
import type { ServiceContext } from '../service-context.ts';
import type { GovernedContext, ListView } from '../types.ts';
import { historicalView, historyPurged } from './history-state.ts';

/** The page of the collection at `asOf`, with `total` counted over the historical states. */
export async function listAsOf(
  ctx: ServiceContext,
  context: GovernedContext,
  scope: RecordScope,
  given: ParsedListParams & { asOf: string },
): Promise<ListView> {
  // As a live list: parameters checked against the entity as this reader sees it (a hidden field
  // is unknown to it), records rendered through the same per-reader view (docs/field-access.md).
  const mask = ctx.fieldAccess.maskFor(context.actor, scope.workspaceId);
  const { asOf, ...params } = given;
  const input = mask.hidden.length === 0 ? given : { ...parseInput(listParamsSchema(mask.listEntity), params, 'query parameter'), asOf };
  const query = toListQuery(mask.listEntity, scope, input);
  if (query.offset > AS_OF_LIST_MAX_OFFSET) {
    throw new CellgateError('VALIDATION_ERROR', `A list as of an instant pages at most ${AS_OF_LIST_MAX_OFFSET} records deep; narrow it with filters.`, {
      details: { fields: [{ path: 'page', message: `(page - 1) × pageSize must be at most ${AS_OF_LIST_MAX_OFFSET}` }] },
    });
  }
  const { records, total } = await historicalPage(ctx, scope, input.asOf, query);
  const meta = {
    total,
    page: input.page,
    pageSize: input.pageSize,
    asOf: input.asOf,
    ...(input.count === undefined ? {} : { count: 'exact' as const }),
    ...(mask.hidden.length === 0 ? {} : { hiddenFields: [...mask.hidden] }),
  };
  return { data: records.map((state) => historicalView(ctx, context, state, input.asOf).data), meta };
}

/** Reads the historical states batch by batch, keeping the matches up to the end of the page in order. */
async function historicalPage(ctx: ServiceContext, scope: RecordScope, at: string, query: ListQuery): Promise<{ records: StoredRecord[]; total: number }> {
  const windowQuery: ListQuery = { ...query, offset: 0, limit: query.offset + query.limit };
  let window: StoredRecord[] = [];
  let total = 0;
  let after: string | null = null;
  for (;;) {
    const entries = await ctx.storage.listVersionStatesAt(ctx.model, scope, at, after, AS_OF_LIST_BATCH);
    if (entries.length === 0) break;
    const batch: StoredRecord[] = [];
    for (const { state } of entries) {
      // A record that existed then but whose state is gone: the page as it was cannot be told.
      if (state === null) throw historyPurged({ asOf: at });
      batch.push(state);
    }
    const selected = runListQuery(batch, windowQuery);
    total += selected.total;
    if (selected.page.length > 0) window = runListQuery([...window, ...selected.page], windowQuery).page;
    if (entries.length < AS_OF_LIST_BATCH) break;
    after = entries[entries.length - 1]!.id;
  }
  return { records: window.slice(query.offset, query.offset + query.limit), total };
}
