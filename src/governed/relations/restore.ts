/**
 * Restore of a cascaded delete (docs/decisions/B30.md): rolling back the delete of a record whose
 * delete cascaded restores the records that cascade deleted, in the same transaction. The change
 * set of the delete names them: its audit records of `entity.deleted`, newest first, so a parent
 * comes back before the records that reference it. A record changed since the cascade (another
 * version than the one the cascade left) stays as it is. Bounded like the cascade itself.
 */
import { MAX_CASCADE_RECORDS } from '../../limits.ts';
import type { StoredRecord } from '../../storage/types.ts';
import type { WriteScope } from '../change-set/write-scope.ts';
import { nextState, write, type ServiceContext } from '../service-context.ts';
import type { GovernedContext } from '../types.ts';
import { contextsOf } from './link.ts';

/**
 * After `deleted` (the record as it was, soft-deleted) was restored in `running`: restores what the
 * cascade of its delete deleted. Nothing when the delete has no change set, or changed nothing else.
 */
export async function restoreCascade(ctx: ServiceContext, running: WriteScope, context: GovernedContext, deleted: StoredRecord): Promise<void> {
  const { session } = running;
  const { tenantId } = deleted;
  // Newest first: the restore just written, then the delete it undoes.
  const { records: latest } = await session.listAudit({ tenantId, resourceType: ctx.resourceType, resourceId: deleted.id, limit: 2 });
  const removal = latest.find((audit) => audit.eventType === 'entity.deleted' && audit.resourceVersion === deleted.version);
  const changeSetId = removal?.changeSetId;
  if (!changeSetId) return;
  const contexts = contextsOf(ctx);
  // The cascade wrote at most MAX_CASCADE_RECORDS records besides the delete itself.
  const { records } = await session.listAudit({ tenantId, changeSetId, limit: MAX_CASCADE_RECORDS + 1 });
  for (const audit of records) {
    if (audit.eventType !== 'entity.deleted' || audit.baseVersion === null || (audit.resourceType === ctx.resourceType && audit.resourceId === deleted.id))
      continue;
    const source = contexts.get(audit.resourceType);
    if (source === undefined) continue;
    const scope = { tenantId, workspaceId: audit.workspaceId, cellId: audit.cellId };
    const current = await session.get(source.model, scope, audit.resourceId);
    if (current === null || current.deletedAt === null || current.version !== audit.resourceVersion) continue;
    const state = await session.getVersionState(source.model, scope, audit.resourceId, audit.baseVersion);
    if (state === null) continue;
    const after = nextState(current, context, { fields: state.fields, deletedAt: null, deletedBy: null });
    await write(source, running, context, { eventType: 'entity.restored', before: current, after, reason: 'restore of a cascaded delete' });
  }
}
