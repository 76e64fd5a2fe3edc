/**
 * The hashes of the verifiable audit log (docs/verifiable-history.md): SHA-256 with the RFC 6962
 * domain separation, leaf = SHA-256(0x00 ‖ data), node = SHA-256(0x01 ‖ left ‖ right).
 *
 * Synchronous on purpose: a proof or a verification of a million records hashes millions of
 * 65-byte inputs, and WebCrypto's `subtle.digest` costs some 30 µs a call on Node (a promise and a
 * thread hop each) against 2 µs for `node:crypto`. The runtime's `node:crypto` is looked up at run
 * time (`process.getBuiltinModule`, Node ≥ 20.16, Bun, Deno), so the root entry imports no Node
 * built-in; where there is none (workerd), a small SHA-256 in TypeScript serves.
 */
import { sha256Portable } from './sha256-portable.ts';

/** Bytes of one SHA-256 hash. */
export const HASH_SIZE = 32;

interface NodeHash {
  update(data: Uint8Array): NodeHash;
  digest(): Uint8Array;
}

interface NodeCrypto {
  createHash(algorithm: 'sha256'): NodeHash;
}

function nodeCrypto(): NodeCrypto | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return typeof runtime?.getBuiltinModule === 'function' ? (runtime.getBuiltinModule('node:crypto') as NodeCrypto | undefined) : undefined;
}

const native = nodeCrypto();

/** SHA-256 of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  if (native === undefined) return sha256Portable(data);
  return new Uint8Array(native.createHash('sha256').update(data).digest());
}

/** SHA-256 of the parts one after another (no copy of the parts when `node:crypto` serves). */
export function sha256Of(...parts: Uint8Array[]): Uint8Array {
  if (native === undefined) return sha256Portable(concat(parts));
  const hash = native.createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

const LEAF_PREFIX = new Uint8Array([0]);
const NODE_PREFIX = new Uint8Array([1]);

/** RFC 6962 leaf hash: SHA-256(0x00 ‖ data). */
export function leafHash(data: Uint8Array): Uint8Array {
  return sha256Of(LEAF_PREFIX, data);
}

/** RFC 6962 interior node hash: SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256Of(NODE_PREFIX, left, right);
}

/** The parts in one array. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Whether two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
