/** Reads: one record by id, and a page of the collection. */
import { authorize } from './access.ts';
import { includedRecords, refuseHiddenIncludes } from './relations/include.ts';
import { listPageView } from './list-stream/list-page.ts';
import { maskData } from './field-access.ts';
import { listParamsSchema, toListQuery, type ParsedListParams } from './list-query.ts';
import { notFound, readerOf, viewFor, type ServiceOperation } from './service-context.ts';
import { parseInput } from './service-schemas.ts';
import type { ListView, RecordView } from './types.ts';

/** Parsed input of a get. */
export interface GetInput {
  id: string;
  includeDeleted: boolean;
  /** Reference fields whose records to answer beside the record (`include`, parsed). */
  include?: readonly string[] | undefined;
}

/** The get operation. */
export const getOperation: ServiceOperation<GetInput, RecordView> = {
  access(ctx, context, scope, input) {
    authorize(context.actor, ctx.policy, scope.workspaceId, input.includeDeleted ? 'includeDeleted' : 'read');
    if (input.include !== undefined && input.include.length > 0)
      refuseHiddenIncludes(input.include, ctx.fieldAccess.maskFor(context.actor, scope.workspaceId).hiddenSet);
  },
  async run(ctx, context, scope, input, running) {
    const record = await readerOf(ctx, running).get(ctx.model, scope, input.id);
    if (record === null || (record.deletedAt !== null && !input.includeDeleted)) throw notFound();
    const view = viewFor(ctx, context, record);
    return input.include === undefined || input.include.length === 0 ? view : { ...view, included: await includedRecords(ctx, context, record, input.include) };
  },
};

/** The list operation. */
export const listOperation: ServiceOperation<ParsedListParams, ListView> = {
  access(ctx, context, scope, input) {
    authorize(context.actor, ctx.policy, scope.workspaceId, input.includeDeleted ? 'includeDeleted' : 'read');
  },
  async run(ctx, context, scope, given, running) {
    const mask = ctx.fieldAccess.maskFor(context.actor, scope.workspaceId);
    // Checked again against the entity as this reader sees it: a filter, sort or search on a field it
    // may not view is refused exactly as if the field did not exist (no oracle), and `q` searches
    // only the fields it may view.
    const input = mask.hidden.length === 0 ? given : parseInput(listParamsSchema(mask.listEntity), given, 'query parameter');
    const result = await readerOf(ctx, running).list(ctx.model, toListQuery(mask.listEntity, scope, input));
    const meta = {
      total: result.total,
      page: input.page,
      pageSize: input.pageSize,
      ...(input.count === undefined ? {} : { count: result.count ?? ('exact' as const) }),
      ...(mask.hidden.length === 0 ? {} : { hiddenFields: [...mask.hidden] }),
    };
    return listPageView(result, meta, (record) => maskData(ctx.codec.data(record), mask));
  },
};
