/**
 * `verifyProofBundle`: checks a proof bundle (`GET /v1/audit/{auditId}/bundle`) offline, with
 * nothing but the log's verifier key: the checkpoint's signature, the record's leaf recomputed
 * from the record and its openings, and the inclusion proof from that leaf to the checkpoint's root.
 */
import { base64ToBytes } from '../../base64.ts';
import { leafHash, sameBytes } from '../../storage/merkle/hash.ts';
import { LeafMismatch, leafData } from '../../storage/merkle/leaf.ts';
import { verifyInclusion } from '../../storage/merkle/tree.ts';
import { noteVerifier } from './note-keys.ts';
import { noteSignedBy, parseCheckpoint, parseNote } from './note.ts';
import type { ProofBundleView } from './proofs.ts';

/** Whether the bundle proves its record is in the log its checkpoint (signed by `verifierKey`) commits to; the reason when not. */
export async function verifyProofBundle(bundle: ProofBundleView, verifierKey: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const verifier = await noteVerifier(verifierKey);
  if (verifier === null) return { ok: false, reason: 'the verifier key is malformed' };
  const note = parseNote(bundle.checkpoint);
  const checkpoint = note === null ? null : parseCheckpoint(note.body);
  if (note === null || checkpoint === null) return { ok: false, reason: 'the checkpoint is malformed' };
  if (!(await noteSignedBy(note, verifier))) return { ok: false, reason: 'the checkpoint is not signed by this key' };
  if (!checkpoint.origin.endsWith(`/${bundle.record.tenantId}`)) return { ok: false, reason: "the checkpoint is of another tenant's log" };
  let hash: Uint8Array;
  try {
    hash = leafHash(leafData(bundle.record, bundle.leaf.openings));
  } catch (error) {
    if (error instanceof LeafMismatch) return { ok: false, reason: `the record does not match its openings (${error.message})` };
    throw error;
  }
  if (!sameBytes(hash, base64ToBytes(bundle.leaf.hash))) return { ok: false, reason: 'the record is not the one logged' };
  if (bundle.proof.treeSize !== checkpoint.size) return { ok: false, reason: 'the proof is for another tree size than the checkpoint' };
  const proof = bundle.proof.hashes.map(base64ToBytes);
  return verifyInclusion(bundle.leaf.index, checkpoint.size, hash, proof, checkpoint.root) ? { ok: true } : { ok: false, reason: 'the inclusion proof fails' };
}
