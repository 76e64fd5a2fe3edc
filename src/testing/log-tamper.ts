/**
 * The tamper suite of the verifiable log (`cellgate/testing`, docs/verifiable-history.md#what-is-detected):
 * the database owner, with the append-only triggers out of the way, changes the stored history in
 * every way issue #31 lists, and `verifyLog` (what `cellgate verify` runs), given one checkpoint
 * kept earlier, must call each change tampered. A case that passes unnoticed fails the suite.
 *
 * Runs on SQL drivers: the runner passes `exec`, raw statements as the owner with `?` placeholders.
 */
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createCheckpoints } from '../governed/log/checkpoints.ts';
import { generateNoteKey, noteSigner } from '../governed/log/note-keys.ts';
import { checkpointBody, signNote } from '../governed/log/note.ts';
import { verifyLog, type VerifyLogResult } from '../governed/log/verify.ts';
import { bytesToBase64 } from '../base64.ts';
import { commitLeaf } from '../storage/merkle/leaf.ts';
import { rootAt } from '../storage/merkle/read.ts';
import { appendLeaf, rootOfFrontier } from '../storage/merkle/tree.ts';
import { EMPTY_ROOT } from '../storage/merkle/read.ts';
import type { AuditRecord, StorageDriver } from '../storage/types.ts';
import { auditFor, conformanceModels, freshScope, invoiceFields, newRecord, nextVersion } from './storage-conformance-fixtures.ts';

/** Options of {@link runLogTamperSuite}. */
export interface LogTamperSuiteOptions {
  name: string;
  dialect: 'sqlite' | 'postgres';
  create(): StorageDriver | Promise<StorageDriver>;
  /** Runs one statement as the database owner (`?` placeholders, in order); resolves its rows. */
  exec(sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  skip?: string;
}

const LOG_TABLES = ['cellgate_audit_log', 'cellgate_log_nodes', 'cellgate_log_leaves', 'cellgate_log_checkpoints'];

/** Registers the tamper cases for one SQL driver. */
export function runLogTamperSuite(options: LogTamperSuiteOptions): void {
  const { exec } = options;
  describe.skipIf(Boolean(options.skip))(`verifiable log tamper suite: ${options.name}${options.skip ? ` (skipped: ${options.skip})` : ''}`, () => {
    let driver: StorageDriver;
    let keys: { signerKey: string; verifierKey: string };
    beforeAll(async () => {
      driver = await options.create();
      await driver.migrate(conformanceModels);
      keys = await generateNoteKey('tamper.test');
      // The owner drops what stops it: the append-only guards of the audit and log tables.
      for (const table of LOG_TABLES) {
        if (options.dialect === 'postgres') await exec(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
        else for (const event of ['update', 'delete']) await exec(`DROP TRIGGER IF EXISTS ${table}_no_${event}`);
      }
    });
    afterAll(() => driver?.close());

    /** A tenant with `count` records (diffs with values and a redacted hash), a checkpoint kept at `keptAt`, and the host's latest at the end. */
    async function history(count = 10, keptAt = 8) {
      const scope = freshScope();
      const checkpoints = createCheckpoints(driver, { signer: await noteSigner(keys.signerKey), origin: 'tamper.test' });
      let record = newRecord(scope, invoiceFields());
      const audits: AuditRecord[] = [];
      let kept = '';
      for (let i = 0; i < count; i++) {
        const audit = auditFor(record, {
          diff: [
            { op: 'replace', path: '/customerName', value: `customer ${i}` },
            { op: 'replace', path: '/notes', valueHash: `hash-${i}` },
          ],
        });
        await driver.transaction((session) => session.appendAudit(audit));
        audits.push(audit);
        record = nextVersion(record);
        if (i + 1 === keptAt) kept = (await checkpoints.checkpoint(scope.tenantId)).note;
      }
      await checkpoints.checkpoint(scope.tenantId);
      return { tenantId: scope.tenantId, audits, kept };
    }

    const verify = (tenantId: string, kept: readonly string[]): Promise<VerifyLogResult> =>
      verifyLog({ log: driver.log!, tenantId, checkpoints: kept, verifierKeys: [keys.verifierKey] });

    const expectTampered = async (tenantId: string, kept: readonly string[], firstBad?: number) => {
      const result = await verify(tenantId, kept);
      expect(result.status, JSON.stringify(result)).toBe('tampered');
      if (firstBad !== undefined && result.status === 'tampered') expect(result.firstBadIndex).toBe(firstBad);
      return result;
    };

    it('verifies an untouched log', async () => {
      const { tenantId, kept } = await history();
      expect(await verify(tenantId, [kept])).toMatchObject({ status: 'verified', size: 10 });
    });

    it('detects an edited diff value, naming the record', async () => {
      const { tenantId, audits, kept } = await history();
      const edited = [
        { op: 'replace', path: '/customerName', value: 'someone else' },
        { op: 'replace', path: '/notes', valueHash: 'hash-3' },
      ];
      await exec('UPDATE cellgate_audit_log SET diff = ? WHERE id = ?', [JSON.stringify(edited), audits[3]!.id]);
      const result = await expectTampered(tenantId, [kept], 3);
      expect(result.status === 'tampered' && result.auditId).toBe(audits[3]!.id);
    });

    it('detects an edited redacted hash', async () => {
      const { tenantId, audits, kept } = await history();
      await exec('UPDATE cellgate_audit_log SET diff = ? WHERE id = ?', [
        JSON.stringify([
          { op: 'replace', path: '/customerName', value: 'customer 5' },
          { op: 'replace', path: '/notes', valueHash: 'forged' },
        ]),
        audits[5]!.id,
      ]);
      await expectTampered(tenantId, [kept], 5);
    });

    it('detects a deleted middle record', async () => {
      const { tenantId, audits, kept } = await history();
      await exec('DELETE FROM cellgate_audit_log WHERE id = ?', [audits[4]!.id]);
      await expectTampered(tenantId, [kept], 4);
    });

    it("detects two records' order swapped", async () => {
      const { tenantId, audits, kept } = await history();
      const move = (auditId: string, to: string) =>
        exec('UPDATE cellgate_log_leaves SET audit_id = ? WHERE tenant_id = ? AND audit_id = ?', [to, tenantId, auditId]);
      await move(audits[2]!.id, 'swap');
      await move(audits[6]!.id, audits[2]!.id);
      await move('swap', audits[6]!.id);
      await expectTampered(tenantId, [kept], 2);
    });

    it('detects a forged record inserted beside the log', async () => {
      const { tenantId, audits, kept } = await history();
      const forged = { ...audits[1]!, id: crypto.randomUUID() };
      // Appended, then its leaf removed by hand: a row the log never saw.
      await driver.transaction((session) => session.appendAudit(forged));
      await exec('DELETE FROM cellgate_log_leaves WHERE tenant_id = ? AND audit_id = ?', [tenantId, forged.id]);
      await exec('DELETE FROM cellgate_log_nodes WHERE tenant_id = ? AND level = 0 AND idx = 10', [tenantId]);
      await exec('UPDATE cellgate_log_heads SET size = 10 WHERE tenant_id = ?', [tenantId]);
      await expectTampered(tenantId, [kept]);
    });

    it('detects a truncated tail', async () => {
      const { tenantId, audits, kept } = await history();
      for (const audit of audits.slice(5)) await exec('DELETE FROM cellgate_audit_log WHERE id = ?', [audit.id]);
      await exec('DELETE FROM cellgate_log_leaves WHERE tenant_id = ? AND leaf_index >= 5', [tenantId]);
      await exec('DELETE FROM cellgate_log_nodes WHERE tenant_id = ?', [tenantId]);
      await exec('UPDATE cellgate_log_heads SET size = 5 WHERE tenant_id = ?', [tenantId]);
      await expectTampered(tenantId, [kept], 5);
    });

    it('detects the whole log recomputed with new hashes and re-signed with a key that is not the app’s', async () => {
      const { tenantId, audits, kept } = await history();
      // The owner edits record 2, then rebuilds every leaf, node and head from the edited records.
      audits[2] = { ...audits[2]!, diff: [{ op: 'replace', path: '/customerName', value: 'rewritten' }] };
      await exec('UPDATE cellgate_audit_log SET diff = ? WHERE id = ?', [JSON.stringify(audits[2]!.diff), audits[2]!.id]);
      for (const table of ['cellgate_log_leaves', 'cellgate_log_nodes', 'cellgate_log_heads', 'cellgate_log_checkpoints'])
        await exec(`DELETE FROM ${table} WHERE tenant_id = ?`, [tenantId]);
      let frontier: Uint8Array[] = [];
      for (const [index, audit] of audits.entries()) {
        const leaf = commitLeaf(audit);
        const step = appendLeaf(index, frontier, leaf.hash);
        frontier = step.frontier;
        await exec('INSERT INTO cellgate_log_leaves (tenant_id, leaf_index, audit_id, openings) VALUES (?, ?, ?, ?)', [
          tenantId,
          index,
          audit.id,
          JSON.stringify(leaf.openings),
        ]);
        for (const node of step.nodes)
          await exec('INSERT INTO cellgate_log_nodes (tenant_id, level, idx, hash) VALUES (?, ?, ?, ?)', [
            tenantId,
            node.level,
            node.index,
            bytesToBase64(node.hash),
          ]);
      }
      await exec('INSERT INTO cellgate_log_heads (tenant_id, size, frontier) VALUES (?, ?, ?)', [
        tenantId,
        audits.length,
        frontier.map(bytesToBase64).join(','),
      ]);
      const forger = await generateNoteKey('tamper.test');
      const note = await signNote(checkpointBody({ origin: `tamper.test/${tenantId}`, size: audits.length, root: rootOfFrontier(frontier, EMPTY_ROOT) }), [
        await noteSigner(forger.signerKey),
      ]);
      await exec('INSERT INTO cellgate_log_checkpoints (tenant_id, size, note, created_at) VALUES (?, ?, ?, ?)', [
        tenantId,
        audits.length,
        note,
        new Date().toISOString(),
      ]);
      await expectTampered(tenantId, [kept]);
    });

    it('detects a record moved to another tenant', async () => {
      const { tenantId, audits, kept } = await history();
      await exec('UPDATE cellgate_audit_log SET tenant_id = ? WHERE id = ?', [freshScope().tenantId, audits[6]!.id]);
      await expectTampered(tenantId, [kept], 6);
    });

    it('detects an old checkpoint served as the latest', async () => {
      const { tenantId, kept } = await history(10, 10);
      // The client kept the checkpoint of 10; the host's newer ones vanish and an old one of 8 is its latest.
      const old = await signNote(checkpointBody({ origin: `tamper.test/${tenantId}`, size: 8, root: await rootAt(driver.log!, tenantId, 8) }), [
        await noteSigner(keys.signerKey),
      ]);
      await exec('DELETE FROM cellgate_log_checkpoints WHERE tenant_id = ?', [tenantId]);
      await exec('INSERT INTO cellgate_log_checkpoints (tenant_id, size, note, created_at) VALUES (?, ?, ?, ?)', [tenantId, 8, old, new Date().toISOString()]);
      await expectTampered(tenantId, [kept]);
    });

    it('detects two different trees served to two clients (split view), by comparing their checkpoints', async () => {
      const { tenantId, kept } = await history();
      // Client B got a checkpoint of the same size over another tree, signed with the app's own key.
      const fork = await signNote(checkpointBody({ origin: `tamper.test/${tenantId}`, size: 8, root: new Uint8Array(32).fill(9) }), [
        await noteSigner(keys.signerKey),
      ]);
      expect((await verify(tenantId, [kept])).status).toBe('verified');
      await expectTampered(tenantId, [kept, fork]);
      // …and one of another size over another tree: its root is not the log's at that size.
      const larger = await signNote(checkpointBody({ origin: `tamper.test/${tenantId}`, size: 9, root: new Uint8Array(32).fill(3) }), [
        await noteSigner(keys.signerKey),
      ]);
      await expectTampered(tenantId, [kept, larger]);
    });
  });
}
