/**
 * Access decisions of governed resources (docs/governed-conventions.md#authentication-and-access, docs/decisions/B11.md). Pure functions
 * of the actor, the entity's permissions and the scope; they throw the wire error on a denial.
 */
import type { EntityDefinitionDocument } from '../entity-document/index.ts';
import { CellgateError } from '../errors.ts';
import type { Actor } from './types.ts';

/** Access levels, lowest first. */
export type AccessLevel = 'none' | 'view' | 'edit' | 'admin';

const RANK: Record<AccessLevel, number> = { none: 0, view: 1, edit: 2, admin: 3 };

/** What an operation needs. */
export type Operation = 'read' | 'create' | 'update' | 'delete' | 'includeDeleted' | 'restore' | 'rollback' | 'history' | 'erase';

const NEEDED: Record<Operation, AccessLevel> = {
  read: 'view',
  create: 'edit',
  update: 'edit',
  delete: 'admin',
  includeDeleted: 'admin',
  restore: 'admin',
  rollback: 'edit',
  history: 'view',
  // Erasure rewrites history (docs/erasure.md): admins only.
  erase: 'admin',
};

/** Roles an actor holds where the record lives: tenant-wide roles plus, in a workspace, that workspace's roles. */
export function rolesIn(actor: Actor, workspaceId: string | null): ReadonlySet<string> {
  const workspaceRoles = workspaceId === null ? [] : ((Object.hasOwn(actor.workspaces, workspaceId) ? actor.workspaces[workspaceId] : undefined) ?? []);
  return new Set([...actor.roles, ...workspaceRoles]);
}

/** Highest of view/edit/admin whose role list meets the actor's roles there. */
export function accessLevel(actor: Actor, permissions: EntityDefinitionDocument['permissions'], workspaceId: string | null): AccessLevel {
  const roles = rolesIn(actor, workspaceId);
  if (meets(permissions.admin, roles)) return 'admin';
  if (meets(permissions.edit, roles)) return 'edit';
  if (meets(permissions.view, roles)) return 'view';
  return 'none';
}

/** Whether any role of `list` is one of `roles`. */
function meets(list: readonly string[], roles: ReadonlySet<string>): boolean {
  for (const role of list) if (roles.has(role)) return true;
  return false;
}

/** What {@link authorize} needs to know about the resource. */
export interface AccessPolicy {
  permissions: EntityDefinitionDocument['permissions'];
  tier: 'tier-1' | 'tier-2' | 'tier-3';
  scope: EntityDefinitionDocument['scope'];
  /** `<namespace>.<resource>.read`, needed with admin to see soft-deleted records. */
  readPermission: string;
  /** Allowed plans, lowest first; empty = any. */
  plans: readonly string[];
}

const forbidden = (message: string): CellgateError => new CellgateError('FORBIDDEN', message);

/** Throws 403 `PLAN_RESTRICTION` when the resource requires a plan the actor's tenant lacks. */
export function checkPlan(actor: Actor, plans: readonly string[]): void {
  if (plans.length === 0 || (actor.plan !== undefined && plans.includes(actor.plan))) return;
  throw new CellgateError('PLAN_RESTRICTION', `This resource requires the ${plans[0]} plan`, {
    details: { requiredPlan: plans[0], currentPlan: actor.plan ?? null },
  });
}

/**
 * Throws 403 unless the actor may perform `operation` in this workspace (null for system-global
 * entities). History needs `audit:read`; rollback and restore need `audit:restore`, plus admin on
 * tier-1 workspace entities.
 */
export function authorize(actor: Actor, policy: AccessPolicy, workspaceId: string | null, operation: Operation): void {
  checkPlan(actor, policy.plans);
  const level = accessLevel(actor, policy.permissions, workspaceId);
  if (level === 'none') throw forbidden('You have no role that grants access to this resource here');
  let needed = NEEDED[operation];
  if (operation === 'rollback' && policy.tier === 'tier-1' && policy.scope !== 'system-global') needed = 'admin';
  if (RANK[level] < RANK[needed]) throw forbidden(`This operation needs ${needed} access; you have ${level}`);
  const { permissions } = actor;
  if (operation === 'includeDeleted' && !permissions.includes(policy.readPermission))
    throw forbidden(`Reading deleted records needs the permission ${policy.readPermission}`);
  if (operation === 'history' && !permissions.includes('audit:read')) throw forbidden('Reading history needs the permission audit:read');
  if ((operation === 'rollback' || operation === 'restore') && !permissions.includes('audit:restore'))
    throw forbidden('Rollback needs the permission audit:restore');
}
