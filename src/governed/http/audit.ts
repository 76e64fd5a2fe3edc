/**
 * Tenant-wide history (docs/decisions/B08.md): `GET /v1/audit` and `GET /v1/audit/:auditId`, read straight
 * from storage (records are redacted when written), tenant from the token, `audit:read` required.
 * Reach: a tenant-wide role reads the whole tenant; otherwise the actor reads the records of the
 * workspaces where it holds a role, never tenant-level ones. `workspaceId` narrows either.
 */
import { CellgateError } from '../../errors.ts';
import type { AuditQuery, AuditRecord, StorageDriver } from '../../storage/types.ts';
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
