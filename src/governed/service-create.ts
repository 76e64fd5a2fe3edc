/** Create (POST collection): decode the fields, honour `Idempotency-Key`, write version 1 with its audit. */
import { validationError } from '../errors.ts';
import type { StoredRecord } from '../storage/types.ts';
import { authorize } from './access.ts';
import { replay, requestHash } from './idempotency.ts';
import { write, written, type ServiceOperation } from './service-context.ts';
import type { RecordView } from './types.ts';

/** Parsed input of a create. */
export interface CreateInput {
  body: Record<string, unknown>;
  idempotencyKey?: string | undefined;
}

// Thrown inside a create transaction when another request stored the same key first: the
// transaction rolls back and the stored answer is replayed.
class KeyTaken extends Error {}

/** The create operation. */
export const createOperation: ServiceOperation<CreateInput, RecordView> = {
  access(ctx, context, scope) {
    authorize(context.actor, ctx.policy, scope.workspaceId, 'create');
  },
  async run(ctx, context, scope, { body, idempotencyKey: key }) {
    const { values, issues } = ctx.codec.decode(body, false);
    if (issues.length > 0) throw validationError('Invalid record', issues);
    const actorId = context.actor.id;
    let hash: string | undefined;
    if (key !== undefined) {
      hash = await requestHash({ resourceType: ctx.resourceType, scope, body });
      const stored = await ctx.storage.getIdempotency(scope.tenantId, actorId, key);
      if (stored !== null) return replay<RecordView>(stored, hash);
    }
    const now = new Date().toISOString();
    const record: StoredRecord = { id: crypto.randomUUID(), ...scope, version: 1, createdAt: now, createdBy: actorId, updatedAt: now, updatedBy: actorId, deletedAt: null, deletedBy: null, fields: values };
    try {
      await ctx.storage.transaction(async (session) => {
        await write(ctx, session, context, { eventType: 'entity.created', before: null, after: record });
        if (key !== undefined && hash !== undefined) {
          const stored = await session.putIdempotency({ tenantId: scope.tenantId, actorId, key, requestHash: hash, status: 201, body: JSON.stringify(ctx.codec.view(record)), createdAt: now });
          if (!stored) throw new KeyTaken();
        }
      });
    } catch (error) {
      if (!(error instanceof KeyTaken) || key === undefined || hash === undefined) throw error;
      const stored = await ctx.storage.getIdempotency(scope.tenantId, actorId, key);
      if (stored === null) throw error;
      return replay<RecordView>(stored, hash);
    }
    return written(ctx, context, 'entity.created', record);
  },
};
