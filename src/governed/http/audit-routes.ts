/**
 * Tenant-wide history (DECISIONS B8): `GET /v1/audit?resourceType&resourceId&workspaceId&limit&cursor`
 * and `GET /v1/audit/:auditId`, read straight from storage (records are redacted when written),
 * tenant from the token, permission `audit:read` required; without a tenant-wide role, only the
 * history of workspaces where the actor holds a role.
 */
import { IttyRouter, type IRequest } from 'itty-router';
import { CellgateError, validationError } from '../../errors.ts';
import type { MatchFunction } from '../../http/handler.ts';
import { searchParamsOf } from '../../http/query.ts';
import { jsonResponse } from '../../http/responses.ts';
import type { AuditQuery, StorageDriver } from '../../storage/types.ts';
import type { Actor } from '../types.ts';
import { historyParamsOf, onlyParams } from './headers.ts';
import { isUuid } from './paths.ts';
import { answer, governed, type Pipeline } from './pipeline.ts';
import { methodNotAllowed } from './responses.ts';

/** Default page size of history reads. */
export const DEFAULT_HISTORY_LIMIT = 20;

/** 403 `FORBIDDEN` unless the actor holds `audit:read`. */
export function requireAuditRead(actor: Actor): void {
  if (!actor.permissions.includes('audit:read')) {
    throw new CellgateError('FORBIDDEN', 'Reading audit history needs the audit:read permission.');
  }
}

/**
 * Tenant-wide roles open the whole tenant's history; an actor with workspace roles only reads the
 * history of a workspace it holds a role in, named by `workspaceId`.
 */
export function requireWorkspaceReach(actor: Actor, workspaceId: string | undefined): void {
  if (actor.roles.length > 0) return;
  if (workspaceId === undefined) {
    throw new CellgateError('FORBIDDEN', 'Without a tenant-wide role, name a workspaceId you hold a role in.');
  }
  if ((actor.workspaces[workspaceId] ?? []).length === 0) throw new CellgateError('FORBIDDEN', 'You hold no role in this workspace.');
}

/** Whether the actor may see one audit record (records outside its reach answer 404). */
function withinReach(actor: Actor, workspaceId: string | null): boolean {
  return actor.roles.length > 0 || (workspaceId !== null && (actor.workspaces[workspaceId] ?? []).length > 0);
}

function uuidParam(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  if (!isUuid(value)) throw validationError(`Invalid query parameter: ${name}.`, [{ path: name, message: `${name} must be a UUID` }]);
  return value.toLowerCase();
}

/** Builds the match function of the audit routes under `basePath`. */
export function auditRoutes(storage: StorageDriver, pipeline: Pipeline, basePath: string): MatchFunction {
  const router = IttyRouter<IRequest>();
  const collection = `${basePath}/v1/audit`;

  router.get(collection, (request: IRequest) =>
    governed(pipeline, request, async ({ actor }) => {
      requireAuditRead(actor);
      const params = searchParamsOf(request.url);
      const paging = historyParamsOf(params, ['resourceType', 'resourceId', 'workspaceId']);
      const resourceType = params.get('resourceType');
      if (resourceType !== null && !/^[a-z][a-z0-9_]*\.[A-Z][A-Za-z0-9]*@v\d+$/.test(resourceType)) {
        throw validationError('Invalid query parameter: resourceType.', [{ path: 'resourceType', message: 'resourceType must be an entity reference such as crm.Invoice@v1' }]);
      }
      const resourceId = uuidParam(params, 'resourceId');
      const workspaceId = uuidParam(params, 'workspaceId');
      requireWorkspaceReach(actor, workspaceId);
      const limit = paging.limit ?? DEFAULT_HISTORY_LIMIT;
      const query: AuditQuery = {
        tenantId: actor.tenantId,
        limit,
        ...(resourceType === null ? {} : { resourceType }),
        ...(resourceId === undefined ? {} : { resourceId }),
        ...(workspaceId === undefined ? {} : { workspaceId }),
        ...(paging.cursor === undefined ? {} : { cursor: paging.cursor }),
      };
      const page = await storage.listAudit(query);
      return jsonResponse({ data: page.records, meta: { limit, nextCursor: page.nextCursor } });
    }),
  );
  router.all(collection, (request: IRequest) => answer(pipeline, request, () => Promise.reject(methodNotAllowed(request.method, ['GET']))));

  router.get(`${collection}/:auditId`, (request: IRequest) =>
    governed(pipeline, request, async ({ actor }) => {
      requireAuditRead(actor);
      const auditId = request.params.auditId;
      const params = searchParamsOf(request.url);
      onlyParams(params, []);
      const record = isUuid(auditId) ? await storage.getAudit(actor.tenantId, auditId.toLowerCase()) : null;
      if (record === null || !withinReach(actor, record.workspaceId)) throw new CellgateError('NOT_FOUND', 'Audit record not found.');
      return jsonResponse({ data: record });
    }),
  );
  router.all(`${collection}/:auditId`, (request: IRequest) => answer(pipeline, request, () => Promise.reject(methodNotAllowed(request.method, ['GET']))));

  return async (request) => (await router.fetch(request)) as Response | undefined;
}
