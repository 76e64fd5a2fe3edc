/**
 * Tenant-wide history (docs/decisions/B08.md): `GET /v1/audit` and `GET /v1/audit/:auditId`, read straight
 * from storage (records are redacted when written), tenant from the token, `audit:read` required.
 * Reach: a tenant-wide role reads the whole tenant; otherwise the actor reads the records of the
 * workspaces where it holds a role, never tenant-level ones. `workspaceId` narrows either.
 *
 * The export (`GET /v1/audit` as NDJSON, docs/audit-export.md) reaches the whole tenant only for a
 * tenant-wide {@link TENANT_ADMIN_ROLE}; anyone else exports the workspaces where it holds a role.
 */
import { CellgateError } from '../../errors.ts';
import type { AuditExportQuery, AuditQuery, AuditRecord, StorageDriver } from '../../storage/types.ts';
import { historyPaging, type HistoryPaging } from '../service-schemas.ts';
import type { Actor, AuditView, HistoryPage } from '../types.ts';

/** Parsed `GET /v1/audit` query. */
export interface AuditListInput {
  limit?: number | undefined;
  cursor?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  workspaceId?: string | undefined;
}

/** 403 `FORBIDDEN` unless the actor holds `audit:read` (audit reads and the change feed). */
export function requireAuditRead(actor: Actor): void {
  if (!actor.permissions.includes('audit:read')) throw new CellgateError('FORBIDDEN', 'Reading audit history needs the audit:read permission.');
}

/** Workspaces where the actor holds at least one role. */
export const workspacesOf = (actor: Actor): string[] => Object.keys(actor.workspaces).filter((id) => (actor.workspaces[id] ?? []).length > 0);

/** Whether the actor may see an audit record of this workspace (null: tenant level). */
export function withinReach(actor: Actor, workspaceId: string | null): boolean {
  return actor.roles.length > 0 || (workspaceId !== null && (Object.hasOwn(actor.workspaces, workspaceId) ? actor.workspaces[workspaceId]! : []).length > 0);
}

/** `GET /v1/audit`: a page of the audit records within the actor's reach, newest first. */
export async function listTenantAudit(storage: StorageDriver, actor: Actor, input: AuditListInput): Promise<HistoryPage<AuditView>> {
  requireAuditRead(actor);
  const { workspaceId, resourceType, resourceId } = input;
  if (workspaceId !== undefined && !withinReach(actor, workspaceId)) throw new CellgateError('FORBIDDEN', 'You hold no role in this workspace.');
  const paging: HistoryPaging = historyPaging(input);
  const query: AuditQuery = {
    tenantId: actor.tenantId,
    limit: paging.limit,
    ...(resourceType === undefined ? {} : { resourceType }),
    ...(resourceId === undefined ? {} : { resourceId }),
    ...(workspaceId === undefined ? {} : { workspaceId }),
    ...(workspaceId === undefined && actor.roles.length === 0 ? { workspaceIds: workspacesOf(actor) } : {}),
    ...(paging.cursor === undefined ? {} : { cursor: paging.cursor }),
  };
  const page = await storage.listAudit(query);
  return { data: page.records, meta: { limit: paging.limit, nextCursor: page.nextCursor } };
}

/** `GET /v1/audit/:auditId`: one record, 404 outside the actor's reach (same reach as the list). */
export async function getTenantAudit(storage: StorageDriver, actor: Actor, auditId: string): Promise<AuditRecord> {
  requireAuditRead(actor);
  const record = await storage.getAudit(actor.tenantId, auditId);
  if (record === null || !withinReach(actor, record.workspaceId)) throw new CellgateError('NOT_FOUND', 'Audit record not found.');
  return record;
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
 * The storage query of an export, after the permission checks: `audit:read` always; the whole
 * tenant for a tenant-wide admin; otherwise only the workspaces where the actor holds a role
 * (403 when it holds none); `workspaceId` narrows to one workspace within the actor's reach.
 */
export function tenantAuditExport(actor: Actor, input: AuditExportInput): AuditExportQuery {
  requireAuditRead(actor);
  const { from, to, resourceType, workspaceId } = input;
  if (workspaceId !== undefined && !withinReach(actor, workspaceId)) throw new CellgateError('FORBIDDEN', 'You hold no role in this workspace.');
  const base = { tenantId: actor.tenantId, from, to, ...(resourceType === undefined ? {} : { resourceType }) };
  if (workspaceId !== undefined) return { ...base, workspaceIds: [workspaceId] };
  if (actor.roles.includes(TENANT_ADMIN_ROLE)) return base;
  const workspaceIds = workspacesOf(actor);
  if (workspaceIds.length === 0) {
    throw new CellgateError(
      'FORBIDDEN',
      `Exporting the whole tenant's audit history needs the tenant-wide ${TENANT_ADMIN_ROLE} role; name a workspaceId where you hold a role.`,
    );
  }
  return { ...base, workspaceIds };
}

/** `GET /v1/audit` as NDJSON: every record of the range within the actor's reach, oldest first. */
export function exportTenantAudit(storage: StorageDriver, actor: Actor, input: AuditExportInput): AsyncIterable<AuditRecord> {
  return storage.exportAudit(tenantAuditExport(actor, input));
}
