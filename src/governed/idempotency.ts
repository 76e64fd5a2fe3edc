/**
 * `Idempotency-Key` helpers: a stable request hash, the lifetime of a key, and the replay decision
 * for a key already used by the same tenant and actor. What is stored for a key is only the id
 * and version of the record the first request created: a replay rebuilds the answer from that
 * version's state, so no field value (personal data, credentials) is ever copied into the
 * idempotency table. See docs/security.md.
 */
import { CellgateError, ConfigurationError } from '../errors.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../limits.ts';
import type { IdempotencyRecord } from '../storage/types.ts';
import { hasUnstorableText } from './codec.ts';

/** JSON with object keys sorted at every level, so equal bodies hash equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 (hex) of the canonical JSON of a request description. */
export async function requestHash(value: unknown): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalJson(value)));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Maximum accepted key length; longer keys are refused with 400. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Refuses an empty or overlong key (400). */
export function checkIdempotencyKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || hasUnstorableText(key)) {
    throw new CellgateError('VALIDATION_ERROR', 'Invalid Idempotency-Key', {
      details: { fields: [{ path: 'Idempotency-Key', message: `Must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` }] },
    });
  }
}

/** The lifetime of keys in milliseconds from the `idempotency.ttlMs` option (a positive integer). */
export function idempotencyTtl(ttlMs: number | undefined): number {
  if (ttlMs === undefined) return DEFAULT_IDEMPOTENCY_TTL_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new ConfigurationError('idempotency.ttlMs', 'must be a positive integer number of milliseconds.');
  return ttlMs;
}

/** True while a stored key is remembered at `now` (ISO 8601). */
export function isLive(stored: IdempotencyRecord, now: string): boolean {
  return stored.expiresAt === undefined || stored.expiresAt > now;
}

/** What a key stores: the created record's id and version, nothing of its content. */
export function replayBody(id: string, version: number): string {
  return JSON.stringify({ id, version });
}

/**
 * The record (id and version) to answer a repeat with; 422 `IDEMPOTENCY_KEY_REUSED` for another
 * body. Also reads the full `{ data, meta }` answers stored by earlier versions, taking only the
 * id and version from them.
 */
export function replayTarget(stored: IdempotencyRecord, hash: string): { id: string; version: number } {
  if (stored.requestHash !== hash) {
    throw new CellgateError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body');
  }
  const body = JSON.parse(stored.body) as { id?: unknown; version?: unknown; data?: { id?: unknown }; meta?: { version?: unknown } };
  const id = body.id ?? body.data?.id;
  const version = body.version ?? body.meta?.version;
  if (typeof id !== 'string' || typeof version !== 'number') throw new Error('Unreadable idempotency record');
  return { id, version };
}
