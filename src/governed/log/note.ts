/**
 * C2SP signed notes and checkpoints (docs/verifiable-history.md#checkpoints):
 *
 * ```
 * <origin>\n<tree size>\n<base64 root hash>\n      ← the checkpoint body (tlog-checkpoint)
 * \n
 * — <key name> <base64(4-byte key hash ‖ Ed25519 signature)>\n   ← one line per signature
 * ```
 *
 * The signature covers the body (the text before the blank line).
 */
import { base64ToBytes, bytesToBase64 } from '../../base64.ts';
import { concat } from '../../storage/merkle/hash.ts';
import type { NoteSigner, NoteVerifier } from './note-keys.ts';

/** Longest note accepted for parsing (a checkpoint is a few hundred bytes; a note may carry several signatures). */
export const MAX_NOTE_LENGTH = 16_384;

/** What a checkpoint body says. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

const encoder = new TextEncoder();

/** The body of a checkpoint. */
export function checkpointBody(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${bytesToBase64(checkpoint.root)}\n`;
}

/** Signs `body` (ending in a newline) with each signer: the note text. */
export async function signNote(body: string, signers: readonly NoteSigner[]): Promise<string> {
  const lines: string[] = [];
  for (const signer of signers) {
    const signature = await signer.sign(encoder.encode(body));
    const prefix = new Uint8Array(4);
    new DataView(prefix.buffer).setUint32(0, signer.keyHash);
    lines.push(`\u2014 ${signer.name} ${bytesToBase64(concat([prefix, signature]))}\n`);
  }
  return `${body}\n${lines.join('')}`;
}

/** A parsed note: body and signature lines (name, key hash, signature bytes). */
export interface ParsedNote {
  body: string;
  signatures: Array<{ name: string; keyHash: number; signature: Uint8Array }>;
}

/** Parses a signed note; null when it is not one (too long, no blank line, a malformed line). */
export function parseNote(text: string): ParsedNote | null {
  if (text.length > MAX_NOTE_LENGTH || !text.endsWith('\n')) return null;
  const split = text.lastIndexOf('\n\n');
  if (split < 0) return null;
  const body = text.slice(0, split + 1);
  const signatures: ParsedNote['signatures'] = [];
  for (const line of text.slice(split + 2, -1).split('\n')) {
    const match = /^\u2014 ([^\s+]{1,255}) ([A-Za-z0-9+/]{4,200}={0,2})$/u.exec(line);
    if (match === null) return null;
    const bytes = base64ToBytes(match[2]!);
    if (bytes.length < 5) return null;
    signatures.push({ name: match[1]!, keyHash: new DataView(bytes.buffer).getUint32(0), signature: bytes.subarray(4) });
  }
  return signatures.length === 0 ? null : { body, signatures };
}

/** Whether one of the note's signatures is a valid one by `verifier`. */
export async function noteSignedBy(note: ParsedNote, verifier: NoteVerifier): Promise<boolean> {
  for (const signature of note.signatures) {
    if (signature.name !== verifier.name || signature.keyHash !== verifier.keyHash) continue;
    if (await verifier.verify(encoder.encode(note.body), signature.signature)) return true;
  }
  return false;
}

/** The checkpoint of a note body; null when it is not one (extension lines after the root are allowed and ignored). */
export function parseCheckpoint(body: string): Checkpoint | null {
  const lines = body.split('\n');
  if (lines.length < 4) return null;
  const [origin, size, root] = lines as [string, string, string];
  if (origin.length === 0 || !/^(0|[1-9][0-9]{0,15})$/.test(size) || !/^[A-Za-z0-9+/]{43}=$/.test(root)) return null;
  const parsed = Number(size);
  return Number.isSafeInteger(parsed) ? { origin, size: parsed, root: base64ToBytes(root) } : null;
}
