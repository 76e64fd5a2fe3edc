/**
 * The one history-reach policy (docs/decisions/B08.md): what of a tenant's history an actor may
 * read through the audit page, the audit item, the export and the change feed (and, later, what a
 * webhook principal may receive). Per mounted resource type: the workspaces where the actor's
 * access level on that entity is at least `view` (tenant-wide roles count everywhere; a
 * system-global type needs a tenant-wide role meeting `view`), none when the resource requires a
 * plan the actor lacks; `audit:read` always. A type the API does not mount is out of reach.
 *
 * The answer is a storage-level {@link HistoryReach}, so drivers filter before paging: records out
 * of reach are absent from pages and counts, and cursors stay right.
 */
import { CellgateError, validationError } from '../errors.ts';
import { HISTORY_REACH_MAX_TERMS } from '../limits.ts';
import { reachAdmits } from '../storage/history-reach.ts';
import type { HistoryReach, HistoryReachGrant } from '../storage/types.ts';
import type { AccessPolicy } from './access.ts';
import type { FieldAccess, FieldMask } from './field-access.ts';
import type { Actor } from './types.ts';

/**
 * Resource type of the tenant-level audit records that retention writes (`audit.purged`): they
 * describe the history of every resource, so only an actor with tenant-wide `view` on every
 * mounted resource reaches them. The same literal as `lifecycle/purge-history.ts` writes.
 */
export const AUDIT_LOG_RESOURCE_TYPE = 'cellgate.AuditLog';

/** A mounted resource as the policy sees it. */
export interface ReachResource {
  resourceType: string;
  policy: Pick<AccessPolicy, 'permissions' | 'scope' | 'plans'>;
  /** Who may view each field of the type (docs/field-access.md); absent: every field follows `permissions`. */
  fields?: FieldAccess;
}

/** The history reach of the resources of one API. */
export interface HistoryReachPolicy {
  /**
   * The reach of a read of many records (audit page, export, feed): 403 without `audit:read`, 403
   * for a `workspaceId` where the actor holds no role, narrowed to `workspaceId` when given, 400
   * when it would take more than {@link HISTORY_REACH_MAX_TERMS} values (name a `workspaceId`).
   */
  reach(actor: Actor, workspaceId?: string): HistoryReach;
  /** Whether the actor may read one history record (the audit item; 403 without `audit:read`). */
  admits(actor: Actor, resourceType: string, workspaceId: string | null): boolean;
  /**
   * The field mask of `actor` on a history record of `resourceType` in `workspaceId`: what of its
   * diff and snapshot it may see (docs/field-access.md). Undefined when nothing is hidden.
   */
  maskFor(actor: Pick<Actor, 'roles' | 'workspaces'>, resourceType: string, workspaceId: string | null): FieldMask | undefined;
}

/** 403 `FORBIDDEN` unless the actor holds `audit:read` (every history read). */
export function requireAuditRead(actor: Actor): void {
  if (!actor.permissions.includes('audit:read')) throw new CellgateError('FORBIDDEN', 'Reading audit history needs the audit:read permission.');
}

/** Workspaces where the actor holds at least one role. */
export const workspacesOf = (actor: Actor): string[] => Object.keys(actor.workspaces).filter((id) => (actor.workspaces[id] ?? []).length > 0);

/** Whether the actor holds a role that counts in this workspace (a tenant-wide one, or one there). */
export function holdsRoleIn(actor: Actor, workspaceId: string): boolean {
  return actor.roles.length > 0 || (Object.hasOwn(actor.workspaces, workspaceId) ? actor.workspaces[workspaceId]! : []).length > 0;
}

const planAllows = (actor: Actor, plans: readonly string[]): boolean => plans.length === 0 || (actor.plan !== undefined && plans.includes(actor.plan));

/** A resource compiled once: the roles that grant at least `view` on it. */
interface Compiled extends ReachResource {
  /** `view` is the lowest level, so any role of the view, edit or admin lists grants it (as `accessLevel` ranks them). */
  readers: ReadonlySet<string>;
}

const readsWith = (roles: readonly string[], readers: ReadonlySet<string>): boolean => roles.some((role) => readers.has(role));

/** Workspaces of one resource type the actor may view (null: all, tenant level included), or undefined: none. */
function viewableWorkspaces(actor: Actor, resource: Compiled, workspaces: readonly string[]): readonly string[] | null | undefined {
  const { scope, plans } = resource.policy;
  if (!planAllows(actor, plans)) return undefined;
  if (readsWith(actor.roles, resource.readers)) return null;
  if (scope === 'system-global') return undefined;
  const ids = workspaces.filter((id) => readsWith(actor.workspaces[id]!, resource.readers));
  return ids.length === 0 ? undefined : ids;
}

/** The whole reach of an actor: one grant per distinct set of workspaces, holding its types. */
function reachOf(actor: Actor, resources: readonly Compiled[]): HistoryReach {
  const workspaces = workspacesOf(actor);
  const grants = new Map<string, { resourceTypes: string[]; workspaceIds: readonly string[] | null }>();
  let everywhere = resources.length > 0;
  for (const resource of resources) {
    const ids = viewableWorkspaces(actor, resource, workspaces);
    if (ids !== null) everywhere = false;
    if (ids === undefined) continue;
    const key = ids === null ? '*' : ids.join(',');
    const grant = grants.get(key);
    if (grant === undefined) grants.set(key, { resourceTypes: [resource.resourceType], workspaceIds: ids });
    else grant.resourceTypes.push(resource.resourceType);
  }
  if (everywhere) grants.get('*')!.resourceTypes.push(AUDIT_LOG_RESOURCE_TYPE);
  return [...grants.values()];
}

/** `reach` restricted to the workspaces `within` (tenant-level records leave it). */
export function narrowReach(reach: HistoryReach, within: readonly string[]): HistoryReach {
  const narrowed: HistoryReachGrant[] = [];
  for (const grant of reach) {
    const workspaceIds = grant.workspaceIds === null ? within : grant.workspaceIds.filter((id) => within.includes(id));
    if (workspaceIds.length > 0) narrowed.push({ resourceTypes: grant.resourceTypes, workspaceIds });
  }
  return narrowed;
}

/** Values a reach puts into a storage query (resource types plus workspace ids). */
const termsOf = (reach: HistoryReach): number => reach.reduce((sum, grant) => sum + grant.resourceTypes.length + (grant.workspaceIds?.length ?? 0), 0);

/**
 * Builds the policy of an API's resources, once. Per request it costs resources × the actor's
 * workspaces access checks, and the storage filter it yields holds at most
 * {@link HISTORY_REACH_MAX_TERMS} values.
 *
 * @example
 * const policy = historyReachPolicy([{ resourceType: 'crm.Customer@v1', policy: { permissions, scope: 'workspace-shared', plans: [] } }]);
 * const page = await storage.listAudit({ tenantId: actor.tenantId, limit: 20, reach: policy.reach(actor) });
 */
export function historyReachPolicy(resources: readonly ReachResource[]): HistoryReachPolicy {
  const mounted: Compiled[] = resources.map((resource) => {
    const { view, edit, admin } = resource.policy.permissions;
    return { ...resource, readers: new Set([...view, ...edit, ...admin]) };
  });
  const fields = new Map(resources.flatMap((resource) => (resource.fields?.declared ? [[resource.resourceType, resource.fields] as const] : [])));
  return {
    maskFor(actor, resourceType, workspaceId) {
      return fields.get(resourceType)?.maskFor(actor, workspaceId);
    },
    reach(actor, workspaceId) {
      requireAuditRead(actor);
      if (workspaceId !== undefined && !holdsRoleIn(actor, workspaceId)) throw new CellgateError('FORBIDDEN', 'You hold no role in this workspace.');
      const whole = reachOf(actor, mounted);
      const reach = workspaceId === undefined ? whole : narrowReach(whole, [workspaceId]);
      const terms = termsOf(reach);
      if (terms > HISTORY_REACH_MAX_TERMS) {
        throw validationError(`Your roles reach too many workspaces to read their history at once (${terms} values, at most ${HISTORY_REACH_MAX_TERMS}).`, [
          { path: 'workspaceId', message: 'Name one workspaceId to read its history' },
        ]);
      }
      return reach;
    },
    admits(actor, resourceType, workspaceId) {
      requireAuditRead(actor);
      return reachAdmits(reachOf(actor, mounted), resourceType, workspaceId);
    },
  };
}
