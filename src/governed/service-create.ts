/** Create (POST collection): decode the fields, honour `Idempotency-Key`, write version 1 with its audit. */
import { CellgateError } from '../errors.ts';
import { IDEMPOTENCY_SWEEP_BATCH } from '../limits.ts';
import type { IdempotencyRecord, RecordScope, StoredRecord } from '../storage/types.ts';
import { authorize } from './access.ts';
import { isLive, replayBody, replayTarget, requestHash } from './idempotency.ts';
import { checkWritable } from './field-access.ts';
import { withinWrite } from './change-set/write-scope.ts';
import { checkRecordSize, viewFor, write, type ServiceContext, type ServiceOperation } from './service-context.ts';
import type { GovernedContext } from './types.ts';
import { invalidRecord } from './service-schemas.ts';
import type { RecordView } from './types.ts';

/** Parsed input of a create. */
export interface CreateInput {
  body: Record<string, unknown>;
  idempotencyKey?: string | undefined;
}

// Thrown inside a create transaction when another request stored the same key first: the
// transaction rolls back and the stored answer is replayed.
class KeyTaken extends Error {}

/**
 * The first answer to a keyed create, rebuilt from the state of the version it created: the key's
 * record stores only that id and version, never field values.
 */
async function replayed(ctx: ServiceContext, context: GovernedContext, stored: IdempotencyRecord, hash: string, scope: RecordScope): Promise<RecordView> {
  const target = replayTarget(stored, hash);
  const state = await ctx.storage.getVersionState(ctx.model, scope, target.id, target.version);
  if (state === null) throw new CellgateError('NOT_FOUND', 'The record created with this Idempotency-Key no longer exists');
  // Rendered for the caller as it is now: its roles may have changed since the first answer.
  return viewFor(ctx, context, state);
}

/** The create operation. */
export const createOperation: ServiceOperation<CreateInput, RecordView> = {
  access(ctx, context, scope) {
    authorize(context.actor, ctx.policy, scope.workspaceId, 'create');
  },
  async run(ctx, context, scope, { body, idempotencyKey: key }, joined) {
    // Before any value is looked at, so no message can echo a value the caller may not write.
    checkWritable(ctx.fieldAccess.maskFor(context.actor, scope.workspaceId), Object.keys(body));
    const { values, issues } = ctx.codec.decode(body, false);
    if (issues.length > 0) throw invalidRecord('Invalid record', issues);
    checkRecordSize(ctx, values);
    const actorId = context.actor.id;
    const now = new Date().toISOString();
    let hash: string | undefined;
    if (key !== undefined) {
      hash = await requestHash({ resourceType: ctx.resourceType, scope, body });
      const stored = await ctx.storage.getIdempotency(scope.tenantId, actorId, key);
      if (stored !== null && isLive(stored, now)) return replayed(ctx, context, stored, hash, scope);
    }
    const record: StoredRecord = {
      id: crypto.randomUUID(),
      ...scope,
      version: 1,
      createdAt: now,
      createdBy: actorId,
      updatedAt: now,
      updatedBy: actorId,
      deletedAt: null,
      deletedBy: null,
      fields: values,
    };
    try {
      // Inside a transaction there is no key (the bound service refuses one), so the replay below never runs there.
      await withinWrite(ctx.storage, joined, async (running) => {
        await write(ctx, running, context, { eventType: 'entity.created', before: null, after: record, input: body });
        if (key !== undefined && hash !== undefined) {
          const expiresAt = new Date(Date.parse(now) + ctx.idempotencyTtlMs).toISOString();
          const stored = await running.session.putIdempotency({
            tenantId: scope.tenantId,
            actorId,
            key,
            requestHash: hash,
            status: 201,
            body: replayBody(record.id, record.version),
            createdAt: now,
            expiresAt,
          });
          if (!stored) throw new KeyTaken();
        }
      });
    } catch (error) {
      if (!(error instanceof KeyTaken) || key === undefined || hash === undefined) throw error;
      const stored = await ctx.storage.getIdempotency(scope.tenantId, actorId, key);
      if (stored === null) throw error;
      return replayed(ctx, context, stored, hash, scope);
    }
    // Each keyed create removes a bounded batch of expired keys, so the table stays bounded. A
    // failed sweep (e.g. a lock timeout) must not fail a create that is already committed.
    if (key !== undefined) await ctx.storage.sweepIdempotency(now, IDEMPOTENCY_SWEEP_BATCH).catch(() => 0);
    return viewFor(ctx, context, record);
  },
};
