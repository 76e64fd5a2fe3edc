/** History reads of one entity (docs/decisions/B08.md): its audit records, one audit record, a record's versions. */
import { CellgateError } from '../errors.ts';
import { HISTORY_PAGE_MAX_LENGTH } from '../limits.ts';
import { authorize } from './access.ts';
import { snapshotOf } from './audit/index.ts';
import { maskAudit, maskSnapshot } from './field-access.ts';
import { notFound, readerOf, type ServiceOperation } from './service-context.ts';
import type { HistoryPaging } from './service-schemas.ts';
import type { AuditView, HistoryPage, VersionView } from './types.ts';

/** Parsed input of a history read. */
export interface HistoryInput {
  paging: HistoryPaging;
  resourceId?: string | undefined;
}

/** Parsed input of a versions read. */
export interface VersionsInput {
  id: string;
  paging: HistoryPaging;
}

/** Parsed input of one audit record. */
export interface AuditInput {
  auditId: string;
}

/** Characters counted per version beside its snapshot: version, event type, time, actor id. */
const VERSION_VIEW_ALLOWANCE = 256;

const historyAccess: ServiceOperation<unknown, unknown>['access'] = (ctx, context, scope) => authorize(context.actor, ctx.policy, scope.workspaceId, 'history');

/** Audit records of this entity (or of one record), newest first. */
export const historyOperation: ServiceOperation<HistoryInput, HistoryPage<AuditView>> = {
  access: historyAccess,
  async run(ctx, context, scope, { paging, resourceId }, running) {
    const page = await readerOf(ctx, running).listAudit({
      tenantId: scope.tenantId,
      ...(scope.workspaceId === null ? {} : { workspaceId: scope.workspaceId }),
      ...(scope.cellId === null ? {} : { cellId: scope.cellId }),
      resourceType: ctx.resourceType,
      ...(resourceId === undefined ? {} : { resourceId }),
      limit: paging.limit,
      maxLength: HISTORY_PAGE_MAX_LENGTH,
      ...(paging.cursor === undefined ? {} : { cursor: paging.cursor }),
    });
    // Records of a workspace-scoped read share one mask; a cell's records live in its workspace.
    const mask = ctx.fieldAccess.maskFor(context.actor, scope.workspaceId);
    return { data: page.records.map((record) => maskAudit(record, mask)), meta: { limit: paging.limit, nextCursor: page.nextCursor } };
  },
};

/** Versions of one record, newest first, redacted. */
export const versionsOperation: ServiceOperation<VersionsInput, HistoryPage<VersionView>> = {
  access: historyAccess,
  async run(ctx, context, scope, { id, paging }, running) {
    const reader = readerOf(ctx, running);
    if ((await reader.get(ctx.model, scope, id)) === null) throw notFound();
    const mask = ctx.fieldAccess.maskFor(context.actor, scope.workspaceId);
    const hidden = mask.hidden.length === 0 ? {} : { hiddenFields: [...mask.hidden] };
    const page = await reader.listAudit({
      tenantId: scope.tenantId,
      resourceType: ctx.resourceType,
      resourceId: id,
      limit: paging.limit,
      maxLength: HISTORY_PAGE_MAX_LENGTH,
      ...(paging.cursor === undefined ? {} : { cursor: paging.cursor }),
    });
    // States are read one by one and the page ends before their snapshots pass the page budget
    // (at least one): a state can be near `recordLimit`, and the audit rows do not tell its size.
    const data: VersionView[] = [];
    let length = 0;
    for (const [index, audit] of page.records.entries()) {
      const state = ctx.tier === 'tier-3' ? null : await reader.getVersionState(ctx.model, scope, id, audit.resourceVersion);
      const snapshot = state === null ? null : maskSnapshot((await snapshotOf(ctx.auditPolicy, state)).snapshot, mask);
      length += JSON.stringify(snapshot).length + VERSION_VIEW_ALLOWANCE;
      const resumeAt = page.cursors?.[index - 1];
      if (length > HISTORY_PAGE_MAX_LENGTH && resumeAt !== undefined) return { data, meta: { limit: paging.limit, nextCursor: resumeAt, ...hidden } };
      data.push({ version: audit.resourceVersion, eventType: audit.eventType, occurredAt: audit.occurredAt, actorId: audit.actorId, snapshot });
    }
    return { data, meta: { limit: paging.limit, nextCursor: page.nextCursor, ...hidden } };
  },
};

/** One audit record of this entity, in the caller's scope. */
export const auditOperation: ServiceOperation<AuditInput, AuditView> = {
  access: historyAccess,
  async run(ctx, context, scope, { auditId }, running) {
    const record = await readerOf(ctx, running).getAudit(scope.tenantId, auditId);
    if (
      record === null ||
      record.resourceType !== ctx.resourceType ||
      record.workspaceId !== scope.workspaceId ||
      (scope.cellId !== null && record.cellId !== scope.cellId)
    ) {
      throw new CellgateError('NOT_FOUND', 'Audit record not found');
    }
    return maskAudit(record, ctx.fieldAccess.maskFor(context.actor, record.workspaceId));
  },
};
