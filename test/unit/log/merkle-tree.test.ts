import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leafHash, sha256 } from '../../../src/storage/merkle/hash.ts';
import { sha256Portable } from '../../../src/storage/merkle/sha256-portable.ts';
import {
  appendLeaf,
  consistencyRanges,
  hashRange,
  inclusionRanges,
  nodeKey,
  nodesOf,
  rootOfFrontier,
  type StoredNode,
  verifyConsistency,
  verifyInclusion,
} from '../../../src/storage/merkle/tree.ts';

const unhex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const EMPTY = sha256(new Uint8Array());

// RFC 6962 test vectors (the Certificate Transparency reference leaves, tree heads and proofs).
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(unhex);
const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const INCLUSION = [
  {
    index: 0,
    size: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    index: 5,
    size: 8,
    proof: [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
];
const CONSISTENCY = [
  {
    first: 2,
    second: 8,
    proof: ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4'],
  },
  {
    first: 6,
    second: 8,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  {
    first: 2,
    second: 5,
    proof: ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b'],
  },
];

/** A log built leaf by leaf the way the drivers do: stored nodes plus the right edge. */
function build(leaves: readonly Uint8Array[]) {
  const nodes = new Map<string, StoredNode>();
  let frontier: Uint8Array[] = [];
  const roots = [EMPTY];
  leaves.forEach((leaf, index) => {
    const step = appendLeaf(index, frontier, leaf);
    for (const node of step.nodes) nodes.set(nodeKey(node), node);
    frontier = step.frontier;
    roots.push(rootOfFrontier(frontier, EMPTY));
  });
  const hashOf = (node: { level: number; index: number }) => nodes.get(nodeKey(node))!.hash;
  return {
    roots,
    inclusion: (index: number, size: number) => inclusionRanges(index, size).map(([lo, hi]) => hashRange(lo, hi, hashOf)),
    consistency: (first: number, second: number) => consistencyRanges(first, second).map(([lo, hi]) => hashRange(lo, hi, hashOf)),
  };
}

describe('RFC 6962 Merkle tree', () => {
  const hashes = LEAVES.map(leafHash);
  const tree = build(hashes);

  it('matches the RFC 6962 tree heads for every size 0..8', () => {
    expect(tree.roots.map(hex)).toEqual(ROOTS);
  });

  it('produces the RFC 6962 inclusion proofs, which verify', () => {
    for (const vector of INCLUSION) {
      const proof = tree.inclusion(vector.index, vector.size);
      expect(proof.map(hex)).toEqual(vector.proof);
      expect(verifyInclusion(vector.index, vector.size, hashes[vector.index]!, proof, unhex(ROOTS[vector.size]!))).toBe(true);
    }
  });

  it('produces the RFC 6962 consistency proofs, which verify', () => {
    for (const vector of CONSISTENCY) {
      const proof = tree.consistency(vector.first, vector.second);
      expect(proof.map(hex)).toEqual(vector.proof);
      expect(verifyConsistency(vector.first, vector.second, unhex(ROOTS[vector.first]!), unhex(ROOTS[vector.second]!), proof)).toBe(true);
    }
  });

  it('every proof of every size up to 40 verifies, and a wrong index, size, leaf or hash does not', () => {
    const many = Array.from({ length: 40 }, (_, i) => leafHash(new Uint8Array([i, i * 7])));
    const big = build(many);
    for (let size = 1; size <= many.length; size++) {
      const root = big.roots[size]!;
      for (let index = 0; index < size; index++) {
        const proof = big.inclusion(index, size);
        expect(verifyInclusion(index, size, many[index]!, proof, root)).toBe(true);
        if (size > 1) expect(verifyInclusion((index + 1) % size, size, many[index]!, proof, root)).toBe(false);
        if (proof.length > 0) expect(verifyInclusion(index, size, many[index]!, [...proof.slice(1), proof[0]!.map((b) => b ^ 1)], root)).toBe(false);
      }
      for (let first = 1; first <= size; first++) {
        const proof = big.consistency(first, size);
        expect(verifyConsistency(first, size, big.roots[first]!, root, proof)).toBe(true);
        if (first < size) {
          expect(verifyConsistency(first, size, big.roots[first - 1]!, root, proof)).toBe(false);
          expect(verifyConsistency(first, size, big.roots[first]!, big.roots[size - 1]!, proof)).toBe(false);
        }
      }
    }
  });

  it('a proof reads O(log n) stored nodes: at most 2·log2(n) for a million leaves', () => {
    const size = 1_000_003;
    for (const index of [0, 1, 524_287, 999_999, size - 1]) {
      expect(nodesOf(inclusionRanges(index, size)).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size)));
      expect(nodesOf(consistencyRanges(index + 1, size)).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size)));
    }
  });

  it('the portable SHA-256 agrees with node:crypto on every length across block boundaries', () => {
    for (let length = 0; length < 200; length++) {
      const data = new Uint8Array(length).map((_, i) => (i * 31 + length) & 0xff);
      expect(hex(sha256Portable(data))).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });
});
