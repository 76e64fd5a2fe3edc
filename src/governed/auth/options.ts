/** Options of token verification for governed resources (docs/decisions/B10.md). */
import type { JWK, JWTPayload } from 'jose';
import type { Actor } from '../types.ts';

/**
 * How bearer tokens are verified and turned into an {@link Actor}. Give exactly one key source:
 * `secret`, `publicKey` or `jwksUrl`.
 *
 * @example
 * const auth: AuthOptions = { secret: process.env.JWT_SECRET!, issuer: 'https://id.example.com' };
 */
export interface AuthOptions {
  /** HS256 shared secret, at least 32 bytes. */
  secret?: string | Uint8Array;
  /** Public key: a PEM `-----BEGIN PUBLIC KEY-----` (SPKI) text, a JWK object, or a JWK as JSON text. */
  publicKey?: string | JWK;
  /** URL of a JWKS document; keys are fetched and cached by `jose`'s `createRemoteJWKSet`. */
  jwksUrl?: string | URL;
  /** Required `iss` value(s); unchecked when absent. */
  issuer?: string | string[];
  /** Required `aud` value(s); unchecked when absent. */
  audience?: string | string[];
  /**
   * Accepted `alg` values. `none` is always refused.
   * @default ["HS256"] with `secret`; ["RS256", "PS256", "ES256", "EdDSA"] with a public key or JWKS
   */
  algorithms?: string[];
  /** Refuse tokens without an `exp` claim (a token that never expires). @default true */
  requireExpiry?: boolean;
  /** Clock skew tolerated on `exp` and `nbf`, in seconds or a `jose` duration text ("30s"). @default 5 */
  clockTolerance?: number | string;
  /**
   * Replaces the default claim mapping. Receives the verified payload and the request; throw a
   * `CellgateError('UNAUTHENTICATED', …)` to refuse the token.
   */
  resolveActor?: (claims: JWTPayload, request: Request) => Actor | Promise<Actor>;
}
