/**
 * The default token claims (DECISIONS.md B10) and their mapping to an {@link Actor}. One zod
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
  /** Roles per workspace id. */
  workspaces: z
    .record(z.string(), z.array(z.string()))
    .default({})
    .transform((map) => {
      // Paths carry workspace ids in lower case; merge keys that differ only in case.
      const lower: Record<string, string[]> = {};
      for (const [id, roles] of Object.entries(map)) lower[id.toLowerCase()] = [...(lower[id.toLowerCase()] ?? []), ...roles];
      return lower;
    }),
  /** Permission strings such as `audit:read`, `audit:restore`, `crm.customers.read`. */
  permissions: z.array(z.string()).default([]),
  /** The tenant's plan, compared with a resource's required plan. */
  plan: z.string().optional(),
});

/** The default claims after defaults are applied. */
export type TokenClaims = z.output<typeof TokenClaimsSchema>;

/**
 * Maps verified claims to an actor with the default mapping. Returns the name of the first bad
 * claim instead when they do not fit {@link TokenClaimsSchema}.
 */
export function claimsToActor(claims: unknown): Actor | { invalidClaim: string } {
  const parsed = TokenClaimsSchema.safeParse(claims);
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
