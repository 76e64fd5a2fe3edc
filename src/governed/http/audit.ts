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
import { CellgateError } from '../../errors.ts';
import { HISTORY_PAGE_MAX_LENGTH } from '../../limits.ts';
import type { AuditExportQuery, AuditQuery, AuditRecord, StorageDriver } from '../../storage/types.ts';
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
  const reach = policy.reach(actor, workspaceId);
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
  // Per record: each carries its own resource type and workspace, hence its own field mask. With
  // `field`, a record found because a field hidden from this reader changed is left out, as if the
  // field did not exist (the page may then hold fewer than `limit`; the cursor stays right).
  const hiddenField = field === undefined ? undefined : topMember(field);
  const data: AuditView[] = [];
  for (const record of page.records) {
    const mask = policy.maskFor(actor, record.resourceType, record.workspaceId);
    if (hiddenField !== undefined && mask?.hiddenSet.has(hiddenField)) continue;
    data.push(maskAudit(record, mask));
  }
  return { data, meta: { limit: paging.limit, nextCursor: page.nextCursor } };
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
