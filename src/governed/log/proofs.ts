/**
 * The proofs of the verifiable log as service functions (docs/verifiable-history.md#http): what
 * the HTTP routes answer and what code may call directly. Each reads O(log n) stored hashes.
 */
import { bytesToBase64 } from '../../base64.ts';
import { CellgateError, validationError } from '../../errors.ts';
import { consistencyProof, leafWithInclusionProof } from '../../storage/merkle/read.ts';
import type { AuditRecord, LogStore } from '../../storage/types.ts';
import type { Checkpoints } from './checkpoints.ts';

/** `GET /v1/audit/{auditId}/proof`: the RFC 6962 audit path of one record's leaf (hashes in base64). */
export interface InclusionProofView {
  leafIndex: number;
  treeSize: number;
  leafHash: string;
  hashes: string[];
}

/** `GET /v1/audit/proof?from&to`: the RFC 6962 consistency proof between two tree sizes. */
export interface ConsistencyProofView {
  from: number;
  to: number;
  hashes: string[];
}

/**
 * `GET /v1/audit/{auditId}/bundle`: everything needed to check one record offline: the record as
 * stored, its leaf (number, openings, hash), the inclusion proof in the tree of the checkpoint,
 * and the signed checkpoint.
 */
export interface ProofBundleView {
  record: AuditRecord;
  leaf: { index: number; hash: string; openings: Record<string, string | { c: string }> };
  proof: { treeSize: number; hashes: string[] };
  checkpoint: string;
}

const pastTree = (name: string, size: number): CellgateError =>
  validationError(`The tree has ${size} leaves; ${name} must not be larger.`, [{ path: name, message: `at most ${size} (the current tree size)` }]);

/** The inclusion proof of leaf `index` in the tree of `size` leaves (default: the current tree). */
export async function inclusionProofOf(log: LogStore, tenantId: string, index: number, size: number | undefined): Promise<InclusionProofView> {
  const current = await log.size(tenantId);
  const treeSize = size ?? current;
  if (treeSize > current) throw pastTree('size', current);
  if (treeSize <= index)
    throw validationError(`The record is leaf ${index}; a tree of ${treeSize} leaves does not hold it.`, [{ path: 'size', message: `more than ${index}` }]);
  // One read of the stored hashes: the leaf's and its path's.
  const { leaf, proof } = await leafWithInclusionProof(log, tenantId, index, treeSize);
  return { leafIndex: index, treeSize, leafHash: bytesToBase64(leaf), hashes: proof.map(bytesToBase64) };
}

/** The consistency proof from the tree of `from` leaves to the tree of `to` leaves. */
export async function consistencyProofOf(log: LogStore, tenantId: string, from: number, to: number): Promise<ConsistencyProofView> {
  const current = await log.size(tenantId);
  if (to > current) throw pastTree('to', current);
  if (from > to) throw validationError('from must not be larger than to.', [{ path: 'from', message: `at most ${to}` }]);
  const hashes = await consistencyProof(log, tenantId, from, to);
  return { from, to, hashes: hashes.map(bytesToBase64) };
}

/** The proof bundle of one record: a fresh checkpoint and the record's inclusion in its tree. */
export async function proofBundleOf(log: LogStore, checkpoints: Checkpoints, record: AuditRecord): Promise<ProofBundleView> {
  const index = await log.leafIndex(record.tenantId, record.id);
  if (index === null) throw new CellgateError('NOT_FOUND', 'Audit record not found in the log.');
  const checkpoint = await checkpoints.checkpoint(record.tenantId);
  const proof = await inclusionProofOf(log, record.tenantId, index, checkpoint.size);
  const [entry] = await log.leaves(record.tenantId, index, 1);
  return {
    record,
    leaf: { index, hash: proof.leafHash, openings: entry!.openings },
    proof: { treeSize: proof.treeSize, hashes: proof.hashes },
    checkpoint: checkpoint.note,
  };
}
