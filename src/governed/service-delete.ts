/** Delete: a soft delete (version + 1, `entity.deleted`); one version carrier is required (docs/decisions/B04.md, docs/decisions/B06.md). */
import { validationError } from '../errors.ts';
import { authorize } from './access.ts';
import { runChangeSet, withinWrite, type WriteScope } from './change-set/write-scope.ts';
import { mayCascade } from './relations/on-delete.ts';
import { carrierOf, checkVersion, live, nextState, readerOf, write, type ServiceOperation } from './service-context.ts';
import type { RecordView } from './types.ts';

/** Parsed input of a delete. */
export interface DeleteInput {
  id: string;
  ifMatch?: number | undefined;
  expectedVersion?: number | undefined;
}

/** The delete operation. */
export const deleteOperation: ServiceOperation<DeleteInput, RecordView> = {
  access(ctx, context, scope, input) {
    if (input.ifMatch === undefined && input.expectedVersion === undefined) {
      throw validationError('DELETE needs the expected version: send If-Match: "<version>" or ?expectedVersion=<version>.', [
        { path: 'expectedVersion', message: 'Required (or an If-Match header)' },
      ]);
    }
    authorize(context.actor, ctx.policy, scope.workspaceId, 'delete');
  },
  async run(ctx, context, scope, input, given) {
    const remove = async (running: WriteScope) => {
      const current = await live(ctx, readerOf(ctx, running), scope, input.id);
      checkVersion(ctx, context, current, input);
      const now = new Date().toISOString();
      const after = { ...nextState(current, context, {}), deletedAt: now, deletedBy: context.actor.id, updatedAt: now };
      return write(ctx, running, context, { eventType: 'entity.deleted', before: current, after, carrier: carrierOf(input) });
    };
    // A delete that may cascade is a change set of its own, so it and every record it changes share one id (B30).
    const record = await (given === undefined && mayCascade(ctx)
      ? runChangeSet(ctx.storage, crypto.randomUUID(), remove)
      : withinWrite(ctx.storage, given, remove));
    return ctx.codec.view(record);
  },
};
