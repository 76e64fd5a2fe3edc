/**
 * Verifiable-log cases of the storage conformance suite (docs/verifiable-history.md): every audit
 * record appended through a session is a leaf of its tenant's log, numbered in commit order with
 * no gap; a rolled-back write leaves no leaf; tenants have separate logs; the stored subtree
 * hashes give the root and the proofs an RFC 6962 tree of the recomputed leaves has.
 */
import { expect } from 'vitest';
import { leafHash, sameBytes } from '../storage/merkle/hash.ts';
import { leafData } from '../storage/merkle/leaf.ts';
import { consistencyProof, EMPTY_ROOT, inclusionProof, rootAt } from '../storage/merkle/read.ts';
import { verifyConsistency, verifyInclusion } from '../storage/merkle/tree.ts';
import { nodeHash } from '../storage/merkle/hash.ts';
import type { AuditRecord, LogStore, StorageDriver } from '../storage/types.ts';
import { auditFor, freshScope, invoiceFields, newRecord, nextVersion } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

/** RFC 6962 MTH straight from the definition (recursion on the largest power of two below n). */
function mth(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

function logOf(driver: StorageDriver): LogStore {
  if (driver.log === undefined) throw new Error(`${driver.name} has no verifiable log`);
  return driver.log;
}

/** `count` audit records of one tenant, one transaction each. */
async function appendMany(driver: StorageDriver, count: number, tenantScope = freshScope()): Promise<AuditRecord[]> {
  let record = newRecord(tenantScope, invoiceFields());
  const written: AuditRecord[] = [];
  for (let i = 0; i < count; i++) {
    const audit = auditFor(record, {
      diff: [{ op: 'replace', path: '/customerName', value: `customer ${i}` }],
      snapshot: i % 3 === 0 ? { note: `n${i}` } : null,
    });
    await driver.transaction((session) => session.appendAudit(audit));
    written.push(audit);
    record = nextVersion(record);
  }
  return written;
}

/** Registers the cases. */
export function logConformanceCases(driver: Current): void {
  describe('verifiable log', () => {
    it('makes every appended audit record a leaf, in order, whose stored hash is that of the recomputed leaf', async () => {
      const written = await appendMany(driver(), 13);
      const tenantId = written[0]!.tenantId;
      const log = logOf(driver());
      expect(await log.size(tenantId)).toBe(13);
      const leaves = await log.leaves(tenantId, 0, 100);
      expect(leaves.map((leaf) => leaf.auditId)).toEqual(written.map((audit) => audit.id));
      expect(leaves.map((leaf) => leaf.index)).toEqual([...Array(13).keys()]);
      for (const leaf of leaves) {
        expect(leaf.record).not.toBeNull();
        expect(sameBytes(leafHash(leafData(leaf.record!, leaf.openings)), leaf.hash)).toBe(true);
        // Committed values are not in the leaf in clear: each has a 16-byte salt.
        expect(Object.keys(leaf.openings).length).toBeGreaterThan(0);
      }
      expect(await log.leafIndex(tenantId, written[4]!.id)).toBe(4);
      expect(await log.leafIndex(freshScope().tenantId, written[4]!.id)).toBeNull();
    });

    it('gives the RFC 6962 root of the recomputed leaves at every size, and proofs that verify', async () => {
      const written = await appendMany(driver(), 11);
      const tenantId = written[0]!.tenantId;
      const log = logOf(driver());
      const hashes = (await log.leaves(tenantId, 0, 100)).map((leaf) => leafHash(leafData(leaf.record!, leaf.openings)));
      for (let size = 0; size <= 11; size++) expect(sameBytes(await rootAt(log, tenantId, size), mth(hashes.slice(0, size)))).toBe(true);
      const root = mth(hashes);
      for (let index = 0; index < 11; index++)
        expect(verifyInclusion(index, 11, hashes[index]!, await inclusionProof(log, tenantId, index, 11), root)).toBe(true);
      for (let from = 1; from <= 11; from++)
        expect(verifyConsistency(from, 11, mth(hashes.slice(0, from)), root, await consistencyProof(log, tenantId, from, 11))).toBe(true);
    });

    it('leaves no leaf and no gap behind a rolled-back write, and keeps tenants apart', async () => {
      const scope = freshScope();
      const other = freshScope();
      await appendMany(driver(), 2, scope);
      const failed = auditFor(newRecord(scope, invoiceFields()));
      await expect(
        driver().transaction(async (session) => {
          await session.appendAudit(failed);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      const [otherAudit] = await appendMany(driver(), 1, other);
      const [third] = await appendMany(driver(), 1, scope);
      const log = logOf(driver());
      expect(await log.leafIndex(scope.tenantId, failed.id)).toBeNull();
      expect(await log.leafIndex(scope.tenantId, third!.id)).toBe(2);
      expect(await log.leafIndex(other.tenantId, otherAudit!.id)).toBe(0);
      expect(await log.size(scope.tenantId)).toBe(3);
    });

    it('numbers the leaves of concurrent writers of one tenant without a gap or a repeat', async () => {
      const scope = freshScope();
      const audits = Array.from({ length: 24 }, () => auditFor(newRecord(scope, invoiceFields())));
      await Promise.all(audits.map((audit) => driver().transaction((session) => session.appendAudit(audit))));
      const log = logOf(driver());
      const leaves = await log.leaves(scope.tenantId, 0, 100);
      expect(leaves.map((leaf) => leaf.index)).toEqual([...Array(24).keys()]);
      expect(new Set(leaves.map((leaf) => leaf.auditId))).toEqual(new Set(audits.map((audit) => audit.id)));
      const hashes = leaves.map((leaf) => leafHash(leafData(leaf.record!, leaf.openings)));
      expect(sameBytes(await rootAt(log, scope.tenantId, 24), mth(hashes))).toBe(true);
    });
  });
}
