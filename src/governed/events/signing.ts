/**
 * Standard Webhooks signatures with WebCrypto (no dependency): `webhook-signature` is
 * `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the bytes of
 * the `whsec_<base64>` secret. Receivers verify with any Standard Webhooks library.
 */
import { base64ToBytes, bytesToBase64 } from '../../base64.ts';
import { ConfigurationError } from '../../errors.ts';

const SECRET_PREFIX = 'whsec_';

/** The key bytes of a `whsec_` secret; a ConfigurationError for anything else. */
export function secretBytes(secret: string, path = 'secret'): Uint8Array<ArrayBuffer> {
  const encoded = typeof secret === 'string' && secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  if (!/^[A-Za-z0-9+/]{16,}={0,2}$/.test(encoded))
    throw new ConfigurationError(path, 'must be a Standard Webhooks secret: "whsec_" followed by base64 (at least 12 bytes).');
  const bytes = base64ToBytes(encoded);
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);
}

/** A fresh random secret in the `whsec_` form (24 bytes). */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${bytesToBase64(crypto.getRandomValues(new Uint8Array(24)))}`;
}

/** Signs one delivery: the three Standard Webhooks headers for this id, time and body. */
export async function signWebhook(key: CryptoKey, id: string, timestampSeconds: number, body: string): Promise<Record<string, string>> {
  const signed = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${bytesToBase64(new Uint8Array(signed))}`,
  };
}

/** Imports a secret's bytes as an HMAC-SHA256 signing key (once per subscription). */
export function importSigningKey(bytes: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}
