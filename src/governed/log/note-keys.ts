/**
 * Ed25519 keys in the note key formats of Go's `golang.org/x/mod/sumdb/note`, which C2SP signed
 * notes use (docs/verifiable-history.md#keys):
 *
 * - signer key: `PRIVATE+KEY+<name>+<hash>+<base64(0x01 ‖ 32-byte seed)>`
 * - verifier key: `<name>+<hash>+<base64(0x01 ‖ 32-byte public key)>`
 *
 * `<hash>` is 8 hex digits: the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key). Signing
 * and verifying use WebCrypto's Ed25519, so this runs wherever the root entry does.
 */
import { base64ToBytes, bytesToBase64 } from '../../base64.ts';
import { ConfigurationError } from '../../errors.ts';
import { concat, sha256 } from '../../storage/merkle/hash.ts';

/** The algorithm byte of Ed25519 in note keys. */
const ALG_ED25519 = 1;
/** DER prefix of a PKCS #8 Ed25519 private key; the 32-byte seed follows. */
const PKCS8_PREFIX = new Uint8Array([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

/** Signs checkpoints: the app's key, named as in the notes it signs. */
export interface NoteSigner {
  /** Key name, the second field of a signature line (no space, no `+`). */
  readonly name: string;
  /** The key hash (first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key)), as a 32-bit unsigned number. */
  readonly keyHash: number;
  /** Ed25519 signature of `message`. */
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** Checks signatures of one key. */
export interface NoteVerifier {
  readonly name: string;
  readonly keyHash: number;
  verify(message: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

/** A key name is non-empty text without space, `+` or control characters (note.go's rule). */
export function isKeyName(name: string): boolean {
  if (name.length === 0 || name.length > 255 || /[\s+]/u.test(name)) return false;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) < 0x20 || name.charCodeAt(i) === 0x7f) return false;
  return true;
}

/** The key hash of a name and an algorithm-prefixed public key. */
export function keyHashOf(name: string, publicKey: Uint8Array): number {
  const digest = sha256(concat([new TextEncoder().encode(`${name}\n`), publicKey]));
  return new DataView(digest.buffer, digest.byteOffset, 4).getUint32(0);
}

const hex8 = (value: number): string => value.toString(16).padStart(8, '0');

/** Splits `<name>+<hash>+<base64 key>`; null when it is not that shape. */
function keyParts(text: string): { name: string; hash: number; key: Uint8Array } | null {
  const match = /^([^+\s]{1,255})\+([0-9a-f]{8})\+([A-Za-z0-9+/]{43,64}={0,2})$/.exec(text.length <= 400 ? text : '');
  if (match === null || !isKeyName(match[1]!)) return null;
  try {
    return { name: match[1]!, hash: Number.parseInt(match[2]!, 16), key: base64ToBytes(match[3]!) };
  } catch {
    return null;
  }
}

/** Ed25519 public key of a 32-byte seed (through a JWK export of the private key). */
async function publicKeyOf(seed: Uint8Array): Promise<{ privateKey: CryptoKey; publicKey: Uint8Array }> {
  const privateKey = await crypto.subtle.importKey('pkcs8', concat([PKCS8_PREFIX, seed]) as BufferSource, { name: 'Ed25519' }, true, ['sign']);
  const jwk = await crypto.subtle.exportKey('jwk', privateKey);
  return { privateKey, publicKey: base64ToBytes(jwk.x!) };
}

/**
 * A signer from a note signer key (`PRIVATE+KEY+<name>+<hash>+<base64>`). A key that is not of that
 * form, not Ed25519, or whose hash does not match its name and key is a {@link ConfigurationError}
 * naming `path` (never echoing the key).
 */
export async function noteSigner(signerKey: string, path = 'log.signingKey'): Promise<NoteSigner> {
  const parts = signerKey.startsWith('PRIVATE+KEY+') ? keyParts(signerKey.slice('PRIVATE+KEY+'.length)) : null;
  if (parts === null || parts.key.length !== 33 || parts.key[0] !== ALG_ED25519)
    throw new ConfigurationError(path, 'must be a note signer key: PRIVATE+KEY+<name>+<8 hex digits>+<base64 of 0x01 and a 32-byte Ed25519 seed>');
  const { privateKey, publicKey } = await publicKeyOf(parts.key.subarray(1));
  const keyHash = keyHashOf(parts.name, concat([new Uint8Array([ALG_ED25519]), publicKey]));
  if (keyHash !== parts.hash) throw new ConfigurationError(path, 'has a key hash that does not match its name and key');
  return {
    name: parts.name,
    keyHash,
    sign: async (message) => new Uint8Array(await crypto.subtle.sign('Ed25519', privateKey, message as BufferSource)),
  };
}

/** A verifier from a note verifier key (`<name>+<hash>+<base64>`); null when it is not one. */
export async function noteVerifier(verifierKey: string): Promise<NoteVerifier | null> {
  const parts = keyParts(verifierKey.trim());
  if (parts === null || parts.key.length !== 33 || parts.key[0] !== ALG_ED25519 || keyHashOf(parts.name, parts.key) !== parts.hash) return null;
  const publicKey = await crypto.subtle.importKey('raw', parts.key.subarray(1) as BufferSource, { name: 'Ed25519' }, false, ['verify']);
  return {
    name: parts.name,
    keyHash: parts.hash,
    verify: (message, signature) => crypto.subtle.verify('Ed25519', publicKey, signature as BufferSource, message as BufferSource),
  };
}

/** A new Ed25519 key pair in the note formats: what `cellgate` hosts generate in dev mode. */
export async function generateNoteKey(name: string): Promise<{ signerKey: string; verifierKey: string }> {
  if (!isKeyName(name)) throw new ConfigurationError('name', 'must be a key name: no space, no +, 1 to 255 characters');
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const { publicKey } = await publicKeyOf(seed);
  const prefixed = concat([new Uint8Array([ALG_ED25519]), publicKey]);
  const hash = hex8(keyHashOf(name, prefixed));
  return {
    signerKey: `PRIVATE+KEY+${name}+${hash}+${bytesToBase64(concat([new Uint8Array([ALG_ED25519]), seed]))}`,
    verifierKey: `${name}+${hash}+${bytesToBase64(prefixed)}`,
  };
}

/** The verifier key of a signer key (what a host prints at start). */
export async function verifierKeyOf(signerKey: string): Promise<string> {
  const signer = await noteSigner(signerKey);
  const parts = keyParts(signerKey.slice('PRIVATE+KEY+'.length))!;
  const { publicKey } = await publicKeyOf(parts.key.subarray(1));
  return `${signer.name}+${hex8(signer.keyHash)}+${bytesToBase64(concat([new Uint8Array([ALG_ED25519]), publicKey]))}`;
}
