/**
 * A second verifier of cellgate's checkpoints and proofs, written from the specifications alone
 * (RFC 6962 §2.1 for the tree, RFC 9162 §2.1.3.2/§2.1.4.2 for checking proofs, C2SP signed-note
 * and tlog-checkpoint for the note, Go's sumdb/note key format), with Node's crypto and nothing of
 * cellgate. If cellgate and this disagree, a client in another language would disagree too.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';

const sha = (...parts: Buffer[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** RFC 6962: leaf hash SHA-256(0x00 ‖ d), interior SHA-256(0x01 ‖ l ‖ r). */
export const rfcLeafHash = (data: Buffer): Buffer => sha(Buffer.from([0]), data);
const interior = (left: Buffer, right: Buffer): Buffer => sha(Buffer.from([1]), left, right);

/** RFC 9162 §2.1.3.2. */
export function checkInclusion(index: number, size: number, leaf: Buffer, path: Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = leaf;
  for (const p of path) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      r = interior(p, r);
      if ((fn & 1n) === 0n) while ((fn & 1n) === 0n && fn !== 0n) (fn >>= 1n), (sn >>= 1n);
    } else r = interior(r, p);
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && r.equals(root);
}

/** RFC 9162 §2.1.4.2. */
export function checkConsistency(first: number, second: number, firstRoot: Buffer, secondRoot: Buffer, proof: Buffer[]): boolean {
  if (first === second) return proof.length === 0 && firstRoot.equals(secondRoot);
  if (first === 0 || first > second || proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let fn = BigInt(first - 1);
  let sn = BigInt(second - 1);
  while ((fn & 1n) === 1n) (fn >>= 1n), (sn >>= 1n);
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      fr = interior(c, fr);
      sr = interior(c, sr);
      if ((fn & 1n) === 0n) while ((fn & 1n) === 0n && fn !== 0n) (fn >>= 1n), (sn >>= 1n);
    } else sr = interior(sr, c);
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && fr.equals(firstRoot) && sr.equals(secondRoot);
}

/** A C2SP checkpoint note checked against a Go note verifier key; its origin, size and root when the signature holds. */
export function openCheckpoint(note: string, verifierKey: string): { origin: string; size: number; root: Buffer } | null {
  // <name>+<hash>+<base64>: the base64 may hold '+' itself, so split at the first two only.
  const [name, hashHex] = verifierKey.split('+') as [string, string];
  const keyB64 = verifierKey.slice(name.length + hashHex.length + 2);
  const key = Buffer.from(keyB64, 'base64');
  if (
    key[0] !== 1 ||
    sha(Buffer.from(`${name}\n`), key)
      .subarray(0, 4)
      .toString('hex') !== hashHex
  )
    return null;
  const split = note.lastIndexOf('\n\n');
  const body = note.slice(0, split + 1);
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.subarray(1).toString('base64url') }, format: 'jwk' });
  const signed = note
    .slice(split + 2)
    .split('\n')
    .filter(Boolean)
    .some((line) => {
      const [dash, who, sig] = line.split(' ');
      const bytes = Buffer.from(sig ?? '', 'base64');
      return (
        dash === '\u2014' && who === name && bytes.subarray(0, 4).toString('hex') === hashHex && verify(null, Buffer.from(body), publicKey, bytes.subarray(4))
      );
    });
  if (!signed) return null;
  const [origin, size, root] = body.split('\n') as [string, string, string];
  return { origin, size: Number(size), root: Buffer.from(root, 'base64') };
}
