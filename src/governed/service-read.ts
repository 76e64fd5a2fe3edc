/** Reads: one record by id, and a page of the collection. */
import { authorize } from './access.ts';
import { listPageView } from './list-stream/list-page.ts';
import { toListQuery, type ParsedListParams } from './list-query.ts';
import { notFound, readerOf, type ServiceOperation } from './service-context.ts';
import type { ListView, RecordView } from './types.ts';

/** Parsed input of a get. */
export interface GetInput {
  id: string;
  includeDeleted: boolean;
}

/** The get operation. */
export const getOperation: ServiceOperation<GetInput, RecordView> = {
  access(ctx, context, scope, input) {
    authorize(context.actor, ctx.policy, scope.workspaceId, input.includeDeleted ? 'includeDeleted' : 'read');
  },
  async run(ctx, _context, scope, input, running) {
    const record = await readerOf(ctx, running).get(ctx.model, scope, input.id);
    if (record === null || (record.deletedAt !== null && !input.includeDeleted)) throw notFound();
    return ctx.codec.view(record);
  },
};

/** The list operation. */
export const listOperation: ServiceOperation<ParsedListParams, ListView> = {
  access(ctx, context, scope, input) {
    authorize(context.actor, ctx.policy, scope.workspaceId, input.includeDeleted ? 'includeDeleted' : 'read');
  },
  async run(ctx, _context, scope, input, running) {
    const result = await readerOf(ctx, running).list(ctx.model, toListQuery(ctx.entity, scope, input));
    const meta = {
      total: result.total,
      page: input.page,
      pageSize: input.pageSize,
      ...(input.count === undefined ? {} : { count: result.count ?? ('exact' as const) }),
    };
    return listPageView(result, meta, (record) => ctx.codec.data(record));
  },
};
