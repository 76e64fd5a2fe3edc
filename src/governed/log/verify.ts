/**
 * `verifyLog`: checks a tenant's log against checkpoints kept outside the database
 * (docs/verifiable-history.md#verifying). It recomputes every leaf from the stored audit record
 * and its openings, rebuilds the tree, and checks:
 *
 * - each kept checkpoint: its signature by a trusted key, its origin (this tenant's log), and that
 *   the recomputed tree of its size has its root (so history it covers was not changed, removed,
 *   reordered, recomputed or moved to another tenant);
 * - the log is no shorter than any kept checkpoint (no truncated tail);
 * - each stored leaf hash is the recomputed one (naming the first record that differs), stored
 *   subtree hashes give the recomputed root (proofs served from them are true);
 * - every audit record of the tenant has a leaf (none slipped in beside the log);
 * - the checkpoint the host keeps as its latest is signed, of this log, and not older than a kept
 *   one (an old checkpoint served as the latest).
 *
 * Records removed by retention leave their leaf (hash and position): only a prefix of the log may
 * lack records. Work: one pass over the leaves in batches of {@link VERIFY_LOG_BATCH}.
 */
import { bytesToBase64 } from '../../base64.ts';
import { VERIFY_LOG_BATCH } from '../../limits.ts';
import { leafHash, sameBytes } from '../../storage/merkle/hash.ts';
import { LeafMismatch, leafData } from '../../storage/merkle/leaf.ts';
import { EMPTY_ROOT, rootAt } from '../../storage/merkle/read.ts';
import { appendLeaf, rootOfFrontier } from '../../storage/merkle/tree.ts';
import type { LogStore } from '../../storage/types.ts';
import { noteVerifier, type NoteVerifier } from './note-keys.ts';
import { noteSignedBy, parseCheckpoint, parseNote, type Checkpoint } from './note.ts';

/** What {@link verifyLog} checks. */
export interface VerifyLogOptions {
  /** The log: a driver's `storage.log`, or an export read back with `ndjsonLogSource`. */
  log: LogStore;
  tenantId: string;
  /** Checkpoints kept outside the database (signed notes): at least one. */
  checkpoints: readonly string[];
  /** Verifier keys (`<name>+<hash>+<base64>`) whose signature makes a checkpoint trusted: at least one. */
  verifierKeys: readonly string[];
  /** Called after each batch: leaves checked and the log's size (for a progress line). */
  onProgress?: (checked: number, size: number) => void;
}

/** The verdict of {@link verifyLog}. */
export type VerifyLogResult =
  | { status: 'verified'; size: number; root: string; checkpoints: number }
  | {
      status: 'tampered';
      reason: string;
      /** The first leaf that does not match, when one can be named. */
      firstBadIndex: number | null;
      /** Its audit record id, when known. */
      auditId: string | null;
    };

/** A verification that could not run (a malformed checkpoint file or key): `cellgate verify` exits 1. */
export class VerifyLogError extends Error {}

const tampered = (reason: string, firstBadIndex: number | null = null, auditId: string | null = null): VerifyLogResult => ({
  status: 'tampered',
  reason,
  firstBadIndex,
  auditId,
});

/** Parses and checks one signed checkpoint: signature by a trusted key and origin of this tenant. */
async function trustedCheckpoint(text: string, verifiers: readonly NoteVerifier[], tenantId: string): Promise<Checkpoint | string> {
  const note = parseNote(text);
  const checkpoint = note === null ? null : parseCheckpoint(note.body);
  if (note === null || checkpoint === null) throw new VerifyLogError('a checkpoint is not a signed checkpoint note');
  let signed = false;
  for (const verifier of verifiers) signed ||= await noteSignedBy(note, verifier);
  if (!signed) return `the checkpoint of size ${checkpoint.size} carries no valid signature by a trusted key`;
  if (!checkpoint.origin.endsWith(`/${tenantId}`)) return `the checkpoint of size ${checkpoint.size} is of another log (${checkpoint.origin.slice(0, 200)})`;
  return checkpoint;
}

/** Verifies a tenant's log; see the module comment. Throws {@link VerifyLogError} when it cannot run. */
export async function verifyLog(options: VerifyLogOptions): Promise<VerifyLogResult> {
  const { log, tenantId } = options;
  if (options.checkpoints.length === 0) throw new VerifyLogError('give at least one checkpoint kept earlier');
  const verifiers: NoteVerifier[] = [];
  for (const key of options.verifierKeys) {
    const verifier = await noteVerifier(key);
    if (verifier === null) throw new VerifyLogError('a verifier key is not of the form <name>+<8 hex digits>+<base64 Ed25519 key>');
    verifiers.push(verifier);
  }
  if (verifiers.length === 0) throw new VerifyLogError('give the verifier key of the log');
  const kept: Checkpoint[] = [];
  for (const text of options.checkpoints) {
    const checkpoint = await trustedCheckpoint(text, verifiers, tenantId);
    if (typeof checkpoint === 'string') return tampered(checkpoint);
    kept.push(checkpoint);
  }
  const size = await log.size(tenantId);
  const longest = Math.max(...kept.map((checkpoint) => checkpoint.size));
  if (size < longest) return tampered(`the log has ${size} leaves, fewer than the ${longest} of a kept checkpoint: its tail was removed`, size);

  // Roots the pass must meet: each kept checkpoint's, and the host's latest checkpoint's.
  const latestKept = await log.latestCheckpoint(tenantId);
  let latest: Checkpoint | null = null;
  if (latestKept !== null) {
    const checkpoint = await trustedCheckpoint(latestKept.note, verifiers, tenantId).catch(() => 'the latest checkpoint the host keeps is malformed');
    if (typeof checkpoint === 'string') return tampered(checkpoint.replace('the checkpoint', 'the latest checkpoint the host keeps'));
    if (checkpoint.size < longest)
      return tampered(
        `the host's latest checkpoint (size ${checkpoint.size}) is older than a kept one (size ${longest}): an old checkpoint is served as the latest`,
      );
    latest = checkpoint;
  }
  const targets = [...kept, ...(latest === null ? [] : [latest])].filter((checkpoint) => checkpoint.size <= size);
  const rootsAt = new Map<number, Uint8Array[]>();
  for (const checkpoint of targets) rootsAt.set(checkpoint.size, [...(rootsAt.get(checkpoint.size) ?? []), checkpoint.root]);
  for (const roots of rootsAt.values())
    if (roots.some((root) => !sameBytes(root, roots[0]!))) return tampered('two checkpoints of the same size have different roots: a split view');

  let frontier: Uint8Array[] = [];
  let firstStoredMismatch: { index: number; auditId: string } | null = null;
  let withRecord = 0;
  const check = (checked: number): VerifyLogResult | null => {
    const roots = rootsAt.get(checked);
    if (roots === undefined) return null;
    const root = checked === 0 ? EMPTY_ROOT : rootOfFrontier(frontier, EMPTY_ROOT);
    if (sameBytes(root, roots[0]!)) return null;
    return tampered(
      `the log's first ${checked} leaves do not have the root of the checkpoint of that size: history it covers was changed`,
      firstStoredMismatch?.index ?? null,
      firstStoredMismatch?.auditId ?? null,
    );
  };
  const atZero = check(0);
  if (atZero !== null) return atZero;
  for (let from = 0; from < size; from += VERIFY_LOG_BATCH) {
    const leaves = await log.leaves(tenantId, from, Math.min(VERIFY_LOG_BATCH, size - from));
    for (const [offset, leaf] of leaves.entries()) {
      const index = from + offset;
      if (leaf.index !== index) return tampered(`leaf ${index} is missing from the log`, index);
      let hash = leaf.hash;
      if (leaf.record === null) {
        // Retention removes the oldest records first: a record missing after one that is present was removed by hand.
        if (withRecord > 0) return tampered(`the audit record of leaf ${index} is missing`, index, leaf.auditId);
      } else {
        withRecord += 1;
        if (leaf.record.tenantId !== tenantId || leaf.record.id !== leaf.auditId)
          return tampered(`leaf ${index} names a record of another tenant or id`, index, leaf.auditId);
        try {
          hash = leafHash(leafData(leaf.record, leaf.openings));
        } catch (error) {
          if (!(error instanceof LeafMismatch)) throw error;
          return tampered(`the audit record of leaf ${index} does not match its openings (${error.message})`, index, leaf.auditId);
        }
        if (!sameBytes(hash, leaf.hash)) firstStoredMismatch ??= { index, auditId: leaf.auditId };
      }
      frontier = appendLeaf(index, frontier, hash).frontier;
      const failed = check(index + 1);
      if (failed !== null) return failed;
    }
    if (leaves.length < Math.min(VERIFY_LOG_BATCH, size - from)) return tampered(`leaf ${from + leaves.length} is missing from the log`, from + leaves.length);
    options.onProgress?.(Math.min(from + VERIFY_LOG_BATCH, size), size);
  }
  if (firstStoredMismatch !== null)
    return tampered(
      `the audit record of leaf ${firstStoredMismatch.index} was changed after it was logged`,
      firstStoredMismatch.index,
      firstStoredMismatch.auditId,
    );
  const root = rootOfFrontier(frontier, EMPTY_ROOT);
  if (!sameBytes(await rootAt(log, tenantId, size), root))
    return tampered('the stored subtree hashes do not give the root of the recomputed leaves: proofs served from them are false');
  const records = await log.auditCount(tenantId);
  if (records > withRecord) return tampered(`the tenant has ${records - withRecord} audit record(s) that are no leaf of its log: slipped in beside it`);
  return { status: 'verified', size, root: bytesToBase64(root), checkpoints: kept.length };
}
