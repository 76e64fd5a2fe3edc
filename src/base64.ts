/**
 * Base64 with the globals every runtime has (`btoa` / `atob`), not Node's `Buffer`: the root entry
 * runs on Node, Bun, Deno and workerd alike (docs/runtimes.md).
 */

/** Standard base64 of bytes. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunks keep the argument list of fromCharCode short for large inputs.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Bytes of a standard or URL-safe base64 text (padding optional); throws on other characters. */
export function base64ToBytes(text: string): Uint8Array {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(standard + '='.repeat((4 - (standard.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** URL-safe base64 without padding (RFC 4648 §5) of UTF-8 text. */
export function toBase64Url(text: string): string {
  return bytesToBase64(new TextEncoder().encode(text)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** UTF-8 text of a URL-safe base64 string; `null` when it does not decode. */
export function fromBase64Url(text: string): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(text));
  } catch {
    return null;
  }
}
