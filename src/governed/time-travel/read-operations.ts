/**
 * The GETs that take `?asOf=` (docs/time-travel.md): without it they are the plain record and
 * collection reads; with it, the same path answers the state at that instant. One operation per
 * path keeps the paths of docs/governed-conventions.md (no new verb, no new noun for "as of").
 */
import { authorize } from '../access.ts';
import type { ParsedListParams } from '../list-query.ts';
import type { ServiceOperation } from '../service-context.ts';
import { getOperation, listOperation, type GetInput } from '../service-read.ts';
import type { ListView, RecordView } from '../types.ts';
import { timeTravelAccess } from './history-state.ts';
import { listAsOf } from './list-operation.ts';
import { asOfOperation } from './record-operations.ts';

/** Parsed input of a record GET, with the instant of a read as of an instant. */
export interface GetAtInput extends GetInput {
  asOf?: string | undefined;
}

/** `GET …/{id}`: the record now, or with `asOf` as it was then. */
export const getAtOperation: ServiceOperation<GetAtInput, RecordView> = {
  access(ctx, context, scope, input) {
    if (input.asOf === undefined) getOperation.access(ctx, context, scope, input);
    else asOfOperation.access(ctx, context, scope, { id: input.id, asOf: input.asOf });
  },
  run(ctx, context, scope, input) {
    const { asOf } = input;
    return asOf === undefined ? getOperation.run(ctx, context, scope, input) : asOfOperation.run(ctx, context, scope, { id: input.id, asOf });
  },
};

/** `GET <collection>`: the page now, or with `asOf` the page as it was then. */
export const listAtOperation: ServiceOperation<ParsedListParams, ListView> = {
  access(ctx, context, scope, input) {
    if (input.asOf === undefined) return listOperation.access(ctx, context, scope, input);
    timeTravelAccess(ctx, context, scope);
    if (input.includeDeleted) authorize(context.actor, ctx.policy, scope.workspaceId, 'includeDeleted');
  },
  run(ctx, context, scope, input) {
    const { asOf } = input;
    return asOf === undefined ? listOperation.run(ctx, context, scope, input) : listAsOf(ctx, context, scope, { ...input, asOf });
  },
};
