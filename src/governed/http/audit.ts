/**
 * Tenant-wide history (docs/decisions/B08.md): `GET /v1/audit` and `GET /v1/audit/:auditId`, read straight
 * from storage (records are redacted when written), tenant from the token, `audit:read` required.
 * Reach: the API's {@link HistoryReachPolicy}: per resource type, the workspaces where the actor may
 * view that entity (all of them, and tenant-level records, for a tenant-wide role meeting `view`).
 * `workspaceId` narrows it; records out of reach are absent from pages, and their item is 404.
 *
 * The export (`GET /v1/audit` as NDJSON, docs/audit-export.md) has the same reach, and reaches the
 * whole tenant only for a tenant-wide {@link TENANT_ADMIN_ROLE}; anyone else exports within the
 * workspaces where it holds a role.
 */
import { CellgateError, validationError } from '../../errors.ts';
import { HISTORY_PAGE_MAX_LENGTH, HISTORY_REACH_MAX_TERMS } from '../../limits.ts';
import type { AuditExportQuery, AuditQuery, AuditRecord, HistoryReach, HistoryReachGrant, StorageDriver } from '../../storage/types.ts';
import { narrowReach, requireAuditRead, workspacesOf, type HistoryReachPolicy } from '../history-reach.ts';
import { maskAudit, topMember } from '../field-access.ts';
import { historyPaging, type HistoryPaging } from '../service-schemas.ts';
import type { Actor, AuditView, HistoryPage } from '../types.ts';

export { requireAuditRead, workspacesOf } from '../history-reach.ts';

/** Parsed `GET /v1/audit` query. */
export interface AuditListInput {
  limit?: number | undefined;
  cursor?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  workspaceId?: string | undefined;
  /** Only records that changed this field (JSON Pointer, checked by `AuditFieldSchema`). */
  field?: string | undefined;
  /** Only records of this change set (docs/decisions/B27.md). */
  changeSetId?: string | undefined;
}

/** `GET /v1/audit`: a page of the audit records within the actor's reach, newest first. */
export async function listTenantAudit(
  storage: StorageDriver,
  policy: HistoryReachPolicy,
  actor: Actor,
  input: AuditListInput,
): Promise<HistoryPage<AuditView>> {
  const { workspaceId, resourceType, resourceId, field, changeSetId } = input;
  const whole = policy.reach(actor, workspaceId);
  const reach = field === undefined ? whole : reachWhereVisible(whole, policy, actor, topMember(field));
  const paging: HistoryPaging = historyPaging(input);
  const query: AuditQuery = {
    tenantId: actor.tenantId,
    limit: paging.limit,
    maxLength: HISTORY_PAGE_MAX_LENGTH,
    reach,
    ...(resourceType === undefined ? {} : { resourceType }),
    ...(resourceId === undefined ? {} : { resourceId }),
    ...(field === undefined ? {} : { field }),
    ...(changeSetId === undefined ? {} : { changeSetId }),
    ...(workspaceId === undefined ? {} : { workspaceId }),
    ...(paging.cursor === undefined ? {} : { cursor: paging.cursor }),
  };
  const page = await storage.listAudit(query);
  // Per record: each carries its own resource type and workspace, hence its own field mask.
  const data = page.records.map((record) => maskAudit(record, policy.maskFor(actor, record.resourceType, record.workspaceId)));
  return { data, meta: { limit: paging.limit, nextCursor: page.nextCursor } };
}

/**
 * The reach of a `field` filter: each resource type only where the reader may view that field
 * (docs/field-access.md), so records that changed a field hidden from it are never found, exactly
 * as if the field did not exist; storage pages and counts the rest as usual. Roles only add, so a
 * field visible with the tenant-wide roles is visible everywhere; otherwise the workspaces are
 * tested one by one (at most the reach's own bound of them).
 */
function reachWhereVisible(reach: HistoryReach, policy: HistoryReachPolicy, actor: Actor, member: string): HistoryReach {
  const visible = (resourceType: string, workspaceId: string | null) => policy.maskFor(actor, resourceType, workspaceId)?.hiddenSet.has(member) !== true;
  const narrowed: HistoryReachGrant[] = [];
  for (const grant of reach) {
    const kept: string[] = [];
    for (const resourceType of grant.resourceTypes) {
      if (grant.workspaceIds === null ? visible(resourceType, null) : grant.workspaceIds.every((id) => visible(resourceType, id))) {
        kept.push(resourceType);
        continue;
      }
      const workspaceIds = (grant.workspaceIds ?? workspacesOf(actor)).filter((id) => visible(resourceType, id));
      if (workspaceIds.length > 0) narrowed.push({ resourceTypes: [resourceType], workspaceIds });
    }
    if (kept.length > 0) narrowed.push({ resourceTypes: kept, workspaceIds: grant.workspaceIds });
  }
  const terms = narrowed.reduce((sum, grant) => sum + grant.resourceTypes.length + (grant.workspaceIds?.length ?? 0), 0);
  if (terms > HISTORY_REACH_MAX_TERMS) {
    throw validationError(`Your roles reach too many workspaces to read this field's history at once (${terms} values, at most ${HISTORY_REACH_MAX_TERMS}).`, [
      { path: 'workspaceId', message: 'Name one workspaceId to read its history' },
    ]);
  }
  return narrowed;
}

/** `GET /v1/audit/:auditId`: one record, 404 outside the actor's reach (same reach as the list). */
export async function getTenantAudit(storage: StorageDriver, policy: HistoryReachPolicy, actor: Actor, auditId: string): Promise<AuditRecord> {
  requireAuditRead(actor);
  const record = await storage.getAudit(actor.tenantId, auditId);
  if (record === null || !policy.admits(actor, record.resourceType, record.workspaceId)) throw new CellgateError('NOT_FOUND', 'Audit record not found.');
  return maskAudit(record, policy.maskFor(actor, record.resourceType, record.workspaceId));
}

/** The tenant-wide role that may export a whole tenant's audit history (tenant-level records included). */
export const TENANT_ADMIN_ROLE = 'admin';

/** Parsed export query of `GET /v1/audit` (`Accept: application/x-ndjson`), `from`/`to` normalised to UTC. */
export interface AuditExportInput {
  from: string;
  to: string;
  resourceType?: string | undefined;
  workspaceId?: string | undefined;
}

/**
 * The storage query of an export, after the permission checks: the policy's reach (narrowed to
 * `workspaceId` when given); without a `workspaceId` and without the tenant-wide admin role, only
 * within the workspaces where the actor holds a role (403 when it holds none).
 */
export function tenantAuditExport(policy: HistoryReachPolicy, actor: Actor, input: AuditExportInput): AuditExportQuery {
  const { from, to, resourceType, workspaceId } = input;
  let reach = policy.reach(actor, workspaceId);
  if (workspaceId === undefined && !actor.roles.includes(TENANT_ADMIN_ROLE)) {
    const workspaceIds = workspacesOf(actor);
    if (workspaceIds.length === 0) {
      throw new CellgateError(
        'FORBIDDEN',
        `Exporting the whole tenant's audit history needs the tenant-wide ${TENANT_ADMIN_ROLE} role; name a workspaceId where you hold a role.`,
      );
    }
    reach = narrowReach(reach, workspaceIds);
  }
  return { tenantId: actor.tenantId, from, to, reach, ...(resourceType === undefined ? {} : { resourceType }) };
}

/** `GET /v1/audit` as NDJSON: every record of the range within the actor's reach, oldest first. */
export function exportTenantAudit(storage: StorageDriver, policy: HistoryReachPolicy, actor: Actor, input: AuditExportInput): AsyncIterable<AuditRecord> {
  return maskedExport(storage.exportAudit(tenantAuditExport(policy, actor, input)), policy, actor);
}

/** The export's records, each as the actor may see it (docs/field-access.md). */
async function* maskedExport(records: AsyncIterable<AuditRecord>, policy: HistoryReachPolicy, actor: Actor): AsyncIterable<AuditRecord> {
  for await (const record of records) yield maskAudit(record, policy.maskFor(actor, record.resourceType, record.workspaceId));
}
