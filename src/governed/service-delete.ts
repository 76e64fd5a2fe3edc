/** Delete: a soft delete (version + 1, `entity.deleted`); one version carrier is required (docs/decisions/B04.md, docs/decisions/B06.md). */
import { validationError } from '../errors.ts';
import { authorize } from './access.ts';
import { withinDeleteWrite } from './relations/on-delete.ts';
import { carrierOf, checkVersion, live, nextState, readerOf, viewFor, write, type ServiceOperation } from './service-context.ts';
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
    const record = await withinDeleteWrite(ctx, given, async (running) => {
      const current = await live(ctx, readerOf(ctx, running), scope, input.id);
      checkVersion(ctx, context, current, input);
      const now = new Date().toISOString();
      const after = { ...nextState(current, context, {}), deletedAt: now, deletedBy: context.actor.id, updatedAt: now };
      return write(ctx, running, context, { eventType: 'entity.deleted', before: current, after, carrier: carrierOf(input) });
    });
    return viewFor(ctx, context, record);
  },
};
