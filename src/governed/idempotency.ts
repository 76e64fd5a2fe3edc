/**
 * `Idempotency-Key` helpers (DECISIONS B16): a stable request hash, and the replay decision for a
 * key already used by the same tenant and actor.
 */
import { CellgateError } from '../errors.ts';
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

/** The parsed first answer for a repeat with the same body; 422 `IDEMPOTENCY_KEY_REUSED` for another body. */
export function replay<T>(stored: IdempotencyRecord, hash: string): T {
  if (stored.requestHash !== hash) {
    throw new CellgateError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body');
  }
  return JSON.parse(stored.body) as T;
}
