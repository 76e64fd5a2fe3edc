/**
 * Rollback (docs/decisions/B06.md, docs/decisions/B07.md): a new version with the exact state of an earlier one, from the
 * unredacted per-version store; restores a soft-deleted record when the target precedes the delete.
 */
import { CellgateError } from '../errors.ts';
import type { AuditEventType } from '../storage/types.ts';
import { authorize } from './access.ts';
import { restorableFields } from './rollback-shape.ts';
import { checkWritable } from './field-access.ts';
import { jsonEqual } from './patch.ts';
import { mayCascade, withinDeleteWrite } from './relations/on-delete.ts';
import { restoreCascade } from './relations/restore.ts';
import { carrierOf, checkVersion, nextState, notFound, viewFor, write, type ServiceOperation } from './service-context.ts';
import type { RollbackBody } from './service-schemas.ts';
import type { RecordView } from './types.ts';

/** Parsed input of a rollback. */
export interface RollbackInput {
  id: string;
  ifMatch?: number | undefined;
  /** The expected version given beside the body (programmatic callers); the body's member wins. */
  expectedVersion?: number | undefined;
  body: RollbackBody;
}

/** The 422 for a target version that cannot be restored, with both versions in its details. */
function invalidTarget(message: string, targetVersion: number, current: { version: number }): CellgateError {
  return new CellgateError('INVALID_TARGET_VERSION', message, { details: { targetVersion, currentVersion: current.version } });
}

/** The rollback operation. */
export const rollbackOperation: ServiceOperation<RollbackInput, RecordView> = {
  access(ctx, context, scope) {
    if (!ctx.rollbackEnabled)
      throw new CellgateError(
        'ROLLBACK_DISABLED',
        ctx.tier === 'tier-3' ? 'Rollback is disabled for tier-3 entities' : 'Rollback is disabled for this resource',
      );
    authorize(context.actor, ctx.policy, scope.workspaceId, 'rollback');
  },
  async run(ctx, context, scope, { id, ifMatch, body, ...given }, joined) {
    const { targetVersion } = body;
    const expectation = { ifMatch, expectedVersion: body.expectedVersion ?? given.expectedVersion };
    const outcome = await withinDeleteWrite(ctx, joined, async (running) => {
      const { session } = running;
      const current = await session.get(ctx.model, scope, id);
      if (current === null) throw notFound();
      checkVersion(ctx, context, current, expectation);
      if (targetVersion >= current.version) throw invalidTarget('targetVersion must be an earlier version of this record', targetVersion, current);
      const target = await session.getVersionState(ctx.model, scope, current.id, targetVersion);
      if (target === null) throw invalidTarget('No stored state for targetVersion', targetVersion, current);
      if (target.deletedAt !== null) throw invalidTarget('targetVersion is a deleted state; choose a version before the delete', targetVersion, current);
      const restoring = current.deletedAt !== null;
      if (restoring) authorize(context.actor, ctx.policy, scope.workspaceId, 'restore');
      const eventType: AuditEventType = restoring ? 'entity.restored' : 'entity.rollback';
      // Read through the entity as it is now: never a value of an earlier shape the entity rejects.
      const fields = restorableFields(ctx.codec, current, target);
      // A rollback writes every field: refused when it would change one the caller may not edit.
      const mask = ctx.fieldAccess.maskFor(context.actor, scope.workspaceId);
      if (mask.locked.size > 0)
        checkWritable(
          mask,
          ctx.codec.fields.filter((field) => !jsonEqual(current.fields[field.name] ?? null, fields[field.name] ?? null)).map((field) => field.camel),
        );
      const after = nextState(current, context, { fields, deletedAt: null, deletedBy: null });
      const written = await write(ctx, running, context, {
        eventType,
        before: current,
        after,
        reason: body.reason ?? null,
        carrier: carrierOf(expectation),
        input: body,
      });
      // A restore brings back what the delete's cascade deleted, in the same change set (B30).
      if (restoring && mayCascade(ctx)) await restoreCascade(ctx, running, context, current);
      return written;
    });
    return viewFor(ctx, context, outcome);
  },
};
