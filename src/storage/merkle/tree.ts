/**
 * RFC 6962 Merkle tree arithmetic over stored subtree hashes (docs/verifiable-history.md).
 *
 * The log stores the hash of every complete subtree as it completes: node (level, index) covers
 * leaves [index·2^level, (index+1)·2^level). Any RFC 6962 subtree [lo, hi) (what MTH hashes in
 * the RFC's recursion) is then the right fold of at most log2(n) stored nodes, so a root, an
 * inclusion proof or a consistency proof reads O(log n) rows whatever the size of the log. The
 * functions here say which nodes; the drivers read them and {@link hashRange} folds them.
 */
import { nodeHash, sameBytes } from './hash.ts';

/** One complete subtree: leaves [index·2^level, (index+1)·2^level). */
export interface NodeId {
  level: number;
  index: number;
}

/** A stored subtree hash. */
export interface StoredNode extends NodeId {
  hash: Uint8Array;
}

/** Key of a node in maps. */
export const nodeKey = (node: NodeId): string => `${node.level}/${node.index}`;

/** The largest power of two strictly below `n` (n ≥ 2): the split point of RFC 6962 §2.1. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The complete subtrees that make up leaves [lo, hi), left to right: the binary decomposition of
 * the range (largest aligned block first). For an RFC 6962 subtree their right fold is its MTH.
 */
export function subtrees(lo: number, hi: number): NodeId[] {
  const nodes: NodeId[] = [];
  let start = lo;
  while (start < hi) {
    let level = 0;
    // Grow while the block stays aligned at `start` and inside the range.
    while (start % 2 ** (level + 1) === 0 && start + 2 ** (level + 1) <= hi) level += 1;
    nodes.push({ level, index: start / 2 ** level });
    start += 2 ** level;
  }
  return nodes;
}

/** The MTH of leaves [lo, hi) from the hashes of {@link subtrees}(lo, hi) (looked up by `hashOf`). */
export function hashRange(lo: number, hi: number, hashOf: (node: NodeId) => Uint8Array): Uint8Array {
  const parts = subtrees(lo, hi).map(hashOf);
  let hash = parts[parts.length - 1]!;
  for (let i = parts.length - 2; i >= 0; i--) hash = nodeHash(parts[i]!, hash);
  return hash;
}

/** A range of leaves [lo, hi) whose MTH is one hash of a proof. */
export type LeafRange = readonly [lo: number, hi: number];

/** RFC 6962 §2.1.1 PATH(m, D[lo:hi]): the ranges whose hashes form the audit path, leaf side first. */
export function inclusionRanges(m: number, size: number): LeafRange[] {
  const out: LeafRange[] = [];
  const walk = (index: number, lo: number, hi: number): void => {
    if (hi - lo <= 1) return;
    const k = splitPoint(hi - lo);
    if (index < k) {
      walk(index, lo, lo + k);
      out.push([lo + k, hi]);
    } else {
      walk(index - k, lo + k, hi);
      out.push([lo, lo + k]);
    }
  };
  walk(m, 0, size);
  return out;
}

/** RFC 6962 §2.1.2 PROOF(m, D[n]) = SUBPROOF(m, D[n], true): the ranges of the consistency proof. */
export function consistencyRanges(m: number, n: number): LeafRange[] {
  const out: LeafRange[] = [];
  const walk = (first: number, lo: number, hi: number, complete: boolean): void => {
    if (first === hi - lo) {
      if (!complete) out.push([lo, hi]);
      return;
    }
    const k = splitPoint(hi - lo);
    if (first <= k) {
      walk(first, lo, lo + k, complete);
      out.push([lo + k, hi]);
    } else {
      walk(first - k, lo + k, hi, false);
      out.push([lo, lo + k]);
    }
  };
  if (m > 0 && m < n) walk(m, 0, n, true);
  return out;
}

/** The stored nodes a list of ranges needs, each once. */
export function nodesOf(ranges: readonly LeafRange[]): NodeId[] {
  const seen = new Map<string, NodeId>();
  for (const [lo, hi] of ranges) for (const node of subtrees(lo, hi)) seen.set(nodeKey(node), node);
  return [...seen.values()];
}

/**
 * What appending leaf number `size` (0-based) adds: the leaf itself at level 0 and every subtree
 * it completes, and the new right edge. `frontier` is the right edge before: the hashes of
 * {@link subtrees}(0, size), largest first (log2 n hashes at most).
 */
export function appendLeaf(size: number, frontier: readonly Uint8Array[], leaf: Uint8Array): { nodes: StoredNode[]; frontier: Uint8Array[] } {
  const edge = [...frontier];
  const nodes: StoredNode[] = [{ level: 0, index: size, hash: leaf }];
  let hash = leaf;
  let index = size;
  let level = 0;
  // Each trailing 1 bit of the index closes one subtree with its left sibling, the edge's last hash.
  while (index % 2 === 1) {
    hash = nodeHash(edge.pop()!, hash);
    index = (index - 1) / 2;
    level += 1;
    nodes.push({ level, index, hash });
  }
  edge.push(hash);
  return { nodes, frontier: edge };
}

/** The root of a tree from its right edge (see {@link appendLeaf}); the empty tree's is SHA-256(""). */
export function rootOfFrontier(frontier: readonly Uint8Array[], emptyRoot: Uint8Array): Uint8Array {
  if (frontier.length === 0) return emptyRoot;
  let hash = frontier[frontier.length - 1]!;
  for (let i = frontier.length - 2; i >= 0; i--) hash = nodeHash(frontier[i]!, hash);
  return hash;
}

/**
 * RFC 9162 §2.1.3.2: whether `proof` shows leaf `index` with hash `leaf` in the tree of `size`
 * leaves with root `root`.
 */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) (fn /= 2), (sn = Math.floor(sn / 2));
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameBytes(r, root);
}

/**
 * RFC 9162 §2.1.4.2: whether `proof` shows the tree of `first` leaves with root `firstRoot` is a
 * prefix of the tree of `second` leaves with root `secondRoot`.
 */
export function verifyConsistency(first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: readonly Uint8Array[]): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second) return false;
  if (first === second) return proof.length === 0 && sameBytes(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = [...proof];
  // A first tree that is a complete left subtree of the second is its own first proof node.
  if (isPowerOfTwo(first)) path.unshift(firstRoot);
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) (fn = (fn - 1) / 2), (sn = Math.floor(sn / 2));
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) (fn /= 2), (sn = Math.floor(sn / 2));
    } else sr = nodeHash(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameBytes(fr, firstRoot) && sameBytes(sr, secondRoot);
}

const isPowerOfTwo = (n: number): boolean => n > 0 && 2 ** Math.round(Math.log2(n)) === n;
