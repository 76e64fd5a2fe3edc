/**
 * The default token claims (docs/decisions/B10.md) and their mapping to an {@link Actor}. One zod
 * schema describes the claims; a token whose claims do not fit it is refused with 401.
 */
import { z } from 'zod';
import type { Actor } from '../types.ts';

// Any 8-4-4-4-12 hex id (what path ids and uuid columns accept), compared in lower case.
const uuid = z.guid({ error: 'must be a UUID' }).transform((value) => value.toLowerCase());

/**
 * Claims cellgate reads from a token by default. Other claims are ignored.
 *
 * @example
 * { sub: '…uuid…', tenant_id: '…uuid…', workspaces: { '…uuid…': ['admin'] }, permissions: ['audit:read'] }
 */
export const TokenClaimsSchema = z.object({
  /** Actor id (user or service), a UUID. */
  sub: uuid,
  /** Tenant the actor belongs to; every query is scoped by it. */
  tenant_id: uuid,
  /** `user` or `service`. @default "user" */
  actor_type: z.enum(['user', 'service']).default('user'),
  /** Tenant-wide roles: they count in every workspace. */
  roles: z.array(z.string()).default([]),
  /**
   * Roles per workspace id. Workspace ids are UUIDs, as in paths: a key that is not one (say
   * `constructor`) can name no workspace, so the claim is malformed and the token refused (401).
   */
  workspaces: z
    .record(z.guid({ error: 'workspace ids must be UUIDs' }), z.array(z.string()))
    .default({})
    .transform((map) => {
      // Paths carry workspace ids in lower case; merge keys that differ only in case. The map has
      // no prototype, so a lookup never finds an inherited member.
      const lower: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
      for (const [id, roles] of Object.entries(map)) {
        const key = id.toLowerCase();
        lower[key] = Object.hasOwn(lower, key) ? [...lower[key]!, ...roles] : [...roles];
      }
      return lower;
    }),
  /** Permission strings such as `audit:read`, `audit:restore`, `crm.customers.read`. */
  permissions: z.array(z.string()).default([]),
  /** The tenant's plan, compared with a resource's required plan. */
  plan: z.string().optional(),
});

/**
 * The claims as a prototype-free copy of their own properties: a claim is never read from
 * `Object.prototype` (a token without `roles` must not find an inherited one).
 */
function ownClaims(claims: unknown): unknown {
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return claims;
  const own: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(claims)) own[name] = value;
  return own;
}

const WORKSPACE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True unless `workspaces` is an object with an own key that is not a UUID (checked before any pattern: 36 characters). */
function workspaceKeysAreIds(claims: unknown): boolean {
  const workspaces = claims !== null && typeof claims === 'object' ? (claims as Record<string, unknown>).workspaces : undefined;
  if (workspaces === null || typeof workspaces !== 'object' || Array.isArray(workspaces)) return true;
  return Object.keys(workspaces).every((key) => key.length === 36 && WORKSPACE_ID.test(key));
}

/** The default claims after defaults are applied. */
export type TokenClaims = z.output<typeof TokenClaimsSchema>;

/**
 * Maps verified claims to an actor with the default mapping. Returns the name of the first bad
 * claim instead when they do not fit {@link TokenClaimsSchema}.
 */
export function claimsToActor(claims: unknown): Actor | { invalidClaim: string } {
  const own = ownClaims(claims);
  // zod's record parsing passes over a `__proto__` key silently; every own key is checked here.
  if (!workspaceKeysAreIds(own)) return { invalidClaim: 'workspaces' };
  const parsed = TokenClaimsSchema.safeParse(own);
  if (!parsed.success) {
    const path = parsed.error.issues[0]?.path.map(String).join('.') || 'claims';
    return { invalidClaim: path };
  }
  const c = parsed.data;
  return {
    id: c.sub,
    type: c.actor_type,
    tenantId: c.tenant_id,
    roles: c.roles,
    workspaces: c.workspaces,
    permissions: c.permissions,
    ...(c.plan === undefined ? {} : { plan: c.plan }),
  };
}
