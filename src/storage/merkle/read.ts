/**
 * Roots and proofs of a tenant's log read from a {@link LogStore}: each reads the O(log n)
 * stored subtree hashes it needs in one call, then folds them (tree.ts).
 */
import type { LogStore } from '../types.ts';
import { sha256 } from './hash.ts';
import { consistencyRanges, hashRange, inclusionRanges, nodeKey, nodesOf, type LeafRange, type NodeId } from './tree.ts';

/** The root of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT = sha256(new Uint8Array());

/** Thrown when the log lacks a node a proof needs (a damaged log). */
export class MissingLogNode extends Error {}

/** The hashes of `ranges` (and of the nodes `extra`, first), from one read of the nodes they need. */
async function rangeHashes(log: LogStore, tenantId: string, ranges: readonly LeafRange[], extra: readonly NodeId[] = []): Promise<Uint8Array[]> {
  const ids = [...extra, ...nodesOf(ranges)];
  const found = new Map((await log.nodes(tenantId, ids)).map((node) => [nodeKey(node), node.hash]));
  const hashOf = (id: NodeId): Uint8Array => {
    const hash = found.get(nodeKey(id));
    if (hash === undefined) throw new MissingLogNode(`the log of tenant ${tenantId} lacks node ${nodeKey(id)}`);
    return hash;
  };
  return [...extra.map(hashOf), ...ranges.map(([lo, hi]) => hashRange(lo, hi, hashOf))];
}

/** The root of the tenant's tree of its first `size` leaves (`size` within the log). */
export async function rootAt(log: LogStore, tenantId: string, size: number): Promise<Uint8Array> {
  if (size === 0) return EMPTY_ROOT;
  const [root] = await rangeHashes(log, tenantId, [[0, size]]);
  return root!;
}

/** The RFC 6962 inclusion proof of leaf `index` in the tree of `size` leaves. */
export function inclusionProof(log: LogStore, tenantId: string, index: number, size: number): Promise<Uint8Array[]> {
  return rangeHashes(log, tenantId, inclusionRanges(index, size));
}

/** The RFC 6962 consistency proof from the tree of `from` leaves to the tree of `to` leaves. */
export function consistencyProof(log: LogStore, tenantId: string, from: number, to: number): Promise<Uint8Array[]> {
  return rangeHashes(log, tenantId, consistencyRanges(from, to));
}

/** Leaf `index`'s stored hash and its inclusion proof in the tree of `size` leaves, from one read. */
export async function leafWithInclusionProof(log: LogStore, tenantId: string, index: number, size: number): Promise<{ leaf: Uint8Array; proof: Uint8Array[] }> {
  const [leaf, ...proof] = await rangeHashes(log, tenantId, inclusionRanges(index, size), [{ level: 0, index }]);
  return { leaf: leaf!, proof };
}
