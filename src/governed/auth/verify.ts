/**
 * Bearer token verification with `jose`: one verifier per resource, built once (keys imported and
 * the JWKS cache created at construction), then `authenticate(request)` per request.
 */
import { createRemoteJWKSet, errors, importJWK, importSPKI, jwtVerify, type JWK, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { CellgateError, ConfigurationError } from '../../errors.ts';
import type { Actor } from '../types.ts';
import { claimsToActor } from './claims.ts';
import type { AuthOptions } from './options.ts';

/** Minimum HS256 secret length in bytes (RFC 7518 §3.2: a key as long as the hash). */
export const MIN_SECRET_BYTES = 32;

const ASYMMETRIC_DEFAULT = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/** Turns a request into an actor, or throws 401 `UNAUTHENTICATED`. */
export type Authenticator = (request: Request) => Promise<Actor>;

function unauthenticated(message: string): CellgateError {
  return new CellgateError('UNAUTHENTICATED', message, { headers: { 'www-authenticate': 'Bearer' } });
}

/** The secret as bytes, refusing one shorter than {@link MIN_SECRET_BYTES}. */
export function secretBytes(secret: string | Uint8Array, path = 'auth.secret'): Uint8Array {
  // An unset environment variable (`process.env.CELLGATE_JWT_SECRET`) arrives here as undefined.
  if (typeof secret !== 'string' && !ArrayBuffer.isView(secret)) {
    throw new ConfigurationError(
      path,
      `is required: a string or Uint8Array of at least ${MIN_SECRET_BYTES} bytes (got ${secret === null ? 'null' : typeof secret}).`,
    );
  }
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new ConfigurationError(path, `must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes.byteLength}).`);
  }
  return bytes;
}

function parseJwk(value: string | JWK): JWK {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as JWK;
  } catch {
    throw new ConfigurationError('auth.publicKey', 'is neither a PEM public key nor a JWK in JSON.');
  }
}

/** A key getter importing the PEM/JWK once per algorithm the token header names. */
function publicKeyGetter(publicKey: string | JWK): JWTVerifyGetKey {
  const isPem = typeof publicKey === 'string' && publicKey.includes('-----BEGIN');
  const jwk = isPem ? undefined : parseJwk(publicKey);
  const cache = new Map<string, ReturnType<typeof importSPKI>>();
  return (header) => {
    const alg = header.alg ?? '';
    let key = cache.get(alg);
    if (!key) {
      key = isPem ? importSPKI(publicKey as string, alg) : (importJWK(jwk!, jwk!.alg ?? alg) as ReturnType<typeof importSPKI>);
      cache.set(alg, key);
    }
    return key;
  };
}

/**
 * A key getter importing the HMAC secret once per algorithm: handing `jose` raw bytes would make
 * it import the key again on every verification, the larger part of its cost.
 */
function secretKeyGetter(bytes: Uint8Array): JWTVerifyGetKey {
  const cache = new Map<string, Promise<CryptoKey>>();
  return (header) => {
    const alg = header.alg ?? '';
    const hash = /^HS(256|384|512)$/.exec(alg)?.[1];
    // Not an HMAC algorithm: hand back the bytes and let jose refuse it against the allow-list.
    if (hash === undefined) return bytes;
    let key = cache.get(alg);
    if (!key) {
      key = crypto.subtle.importKey('raw', bytes as BufferSource, { name: 'HMAC', hash: `SHA-${hash}` }, false, ['verify']);
      cache.set(alg, key);
    }
    return key;
  };
}

function keySource(options: AuthOptions): { key: Uint8Array | JWTVerifyGetKey; algorithms: string[] } {
  const sources = [options.secret, options.publicKey, options.jwksUrl].filter((s) => s !== undefined);
  if (sources.length !== 1) {
    throw new ConfigurationError('auth', 'give exactly one of secret, publicKey or jwksUrl.');
  }
  const algorithms = options.algorithms;
  if (algorithms?.some((alg) => alg.toLowerCase() === 'none')) {
    throw new ConfigurationError('auth.algorithms', 'must not contain "none".');
  }
  if (algorithms !== undefined && algorithms.length === 0) {
    throw new ConfigurationError('auth.algorithms', 'must name at least one algorithm.');
  }
  if (options.secret !== undefined) {
    return { key: secretKeyGetter(secretBytes(options.secret)), algorithms: algorithms ?? ['HS256'] };
  }
  if (options.publicKey !== undefined) {
    return { key: publicKeyGetter(options.publicKey), algorithms: algorithms ?? ASYMMETRIC_DEFAULT };
  }
  let url: URL;
  try {
    url = new URL(options.jwksUrl!);
  } catch {
    throw new ConfigurationError('auth.jwksUrl', 'is not a valid URL.');
  }
  return { key: createRemoteJWKSet(url), algorithms: algorithms ?? ASYMMETRIC_DEFAULT };
}

/** The client-facing reason a token was refused; never internals of the verifier. */
function refusal(error: unknown): CellgateError {
  if (error instanceof CellgateError) return error;
  if (error instanceof errors.JWTExpired) return unauthenticated('Token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return unauthenticated(`Token claim "${error.claim}" is missing.`);
    if (error.claim === 'nbf') return unauthenticated('Token is not valid yet.');
    if (error.claim === 'iss') return unauthenticated('Token issuer is not accepted.');
    if (error.claim === 'aud') return unauthenticated('Token audience is not accepted.');
    return unauthenticated(`Token claim "${error.claim}" is invalid.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return unauthenticated('Token algorithm is not accepted.');
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return unauthenticated('Token signature is invalid.');
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return unauthenticated('Token could not be verified: the key set is unavailable.');
  }
  return unauthenticated('Token is malformed.');
}

/** 9999-12-31T23:59:59Z in seconds: no real token is valid or issued beyond it. */
const LAST_SECOND = 253_402_300_799;

/**
 * Refuses (401) a token whose `exp`, `nbf` or `iat` is present but not a finite number of seconds
 * between 1970 and the end of year 9999. `jose` checks only that they are numbers, and JSON reads
 * `1e400` as Infinity: such a token would never expire.
 */
function checkTimeClaims(payload: JWTPayload): void {
  for (const claim of ['exp', 'nbf', 'iat'] as const) {
    if (!Object.hasOwn(payload, claim)) continue;
    const value = payload[claim];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > LAST_SECOND) {
      throw unauthenticated(`Token claim "${claim}" is invalid.`);
    }
  }
}

/** The token of an `Authorization: Bearer <token>` header. */
function bearerToken(request: Request): string {
  const header = request.headers.get('authorization');
  if (header === null || header.trim() === '') {
    throw unauthenticated('Authorization header with a Bearer token is required.');
  }
  const match = /^Bearer[ ]+([A-Za-z0-9_\-.=+/]+)\s*$/i.exec(header.trim());
  if (!match) throw unauthenticated('Authorization header must be "Bearer <token>".');
  return match[1]!;
}

/**
 * Builds the authenticator of a resource. Construction checks the options (exactly one key
 * source, secret length, no `none`) and throws {@link ConfigurationError}.
 *
 * @example
 * const authenticate = createAuthenticator({ secret: process.env.JWT_SECRET! });
 * const actor = await authenticate(request); // or throws 401 UNAUTHENTICATED
 */
export function createAuthenticator(options: AuthOptions): Authenticator {
  const { key, algorithms } = keySource(options);
  const verifyOptions: JWTVerifyOptions = {
    algorithms,
    clockTolerance: options.clockTolerance ?? 5,
    ...(options.requireExpiry === false ? {} : { requiredClaims: ['exp'] }),
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
  };
  const verify = (token: string): Promise<{ payload: JWTPayload }> =>
    typeof key === 'function' ? jwtVerify(token, key, verifyOptions) : jwtVerify(token, key, verifyOptions);

  return async (request) => {
    const token = bearerToken(request);
    let payload: JWTPayload;
    try {
      ({ payload } = await verify(token));
    } catch (error) {
      throw refusal(error);
    }
    checkTimeClaims(payload);
    if (options.resolveActor) return options.resolveActor(payload, request);
    const actor = claimsToActor(payload);
    if ('invalidClaim' in actor) throw unauthenticated(`Token claim "${actor.invalidClaim}" is missing or invalid.`);
    return actor;
  };
}
