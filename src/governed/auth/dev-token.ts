/** Signing development tokens (the `cellgate token` command and tests). Not for production issuing. */
import { SignJWT } from 'jose';
import { ConfigurationError } from '../../errors.ts';
import { secretBytes } from './verify.ts';

/** Input of {@link signDevToken}: the default claims of docs/decisions/B10.md in camelCase. */
export interface DevTokenInput {
  /** HS256 secret, at least 32 bytes. */
  secret: string | Uint8Array;
  /** Tenant id (UUID). */
  tenantId: string;
  /** Actor id (UUID). @default a random UUID */
  sub?: string;
  /** @default "user" */
  actorType?: 'user' | 'service';
  /** Tenant-wide roles. */
  roles?: string[];
  /** Roles per workspace id. */
  workspaces?: Record<string, string[]>;
  /** Permission strings, e.g. `audit:read`. */
  permissions?: string[];
  plan?: string;
  issuer?: string;
  audience?: string;
  /** Lifetime as a `jose` duration text or seconds. @default "1h" */
  expiresIn?: string | number;
}

/**
 * Signs an HS256 token carrying the default claims.
 *
 * @example signDevToken
 * import { signDevToken } from 'cellgate';
 *
 * // For development and tests only: production tokens come from your identity provider.
 * const token = await signDevToken({
 *   secret: process.env.CELLGATE_JWT_SECRET ?? '',
 *   tenantId: '00000000-0000-4000-8000-000000000001',
 *   workspaces: { '00000000-0000-4000-8000-000000000002': ['editor'] },
 * });
 * export const headers = { authorization: `Bearer ${token}` };
 */
export async function signDevToken(input: DevTokenInput): Promise<string> {
  if (typeof input !== 'object' || input === null) throw new ConfigurationError('signDevToken', 'takes an options object: { secret, tenantId, ... }');
  const key = secretBytes(input.secret, 'secret');
  const claims: Record<string, unknown> = {
    tenant_id: input.tenantId,
    actor_type: input.actorType ?? 'user',
    roles: input.roles ?? [],
    workspaces: input.workspaces ?? {},
    permissions: input.permissions ?? [],
  };
  if (input.plan !== undefined) claims.plan = input.plan;
  const expiresIn = input.expiresIn ?? '1h';
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(input.sub ?? crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(typeof expiresIn === 'number' ? Math.floor(Date.now() / 1000) + expiresIn : expiresIn);
  if (input.issuer !== undefined) jwt = jwt.setIssuer(input.issuer);
  if (input.audience !== undefined) jwt = jwt.setAudience(input.audience);
  return jwt.sign(key);
}
