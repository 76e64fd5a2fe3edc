/** Storage conformance and SQLite-only behaviour, on real better-sqlite3 files in a temp folder. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { CellgateError, ConfigurationError } from 'cellgate';
import { runStorageConformance } from 'cellgate/testing';
import { auditFor, conformanceModels, freshScope, invoiceFields, invoiceModel, newRecord, seed } from '../../src/testing/storage-conformance-fixtures.ts';
import { driverSkip, expectDuplicateIsConflict } from './drivers.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'cellgate-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runStorageConformance({
  name: 'sqlite',
  skip: driverSkip('sqlite'),
  create: () => sqliteStorage({ filename: join(dir, 'conformance', 'cellgate.db') }),
  rawAuditRows: async (_driver, tenantId) => {
    const raw = new Database(join(dir, 'conformance', 'cellgate.db'), { readonly: true });
    try {
      return raw.prepare('SELECT * FROM cellgate_audit_log WHERE tenant_id = ?').all(tenantId);
    } finally {
      raw.close();
    }
  },
  tamperAudit: async (_driver, tenantId, statement) => {
    const raw = new Database(join(dir, 'conformance', 'cellgate.db'));
    try {
      const sql =
        statement === 'update' ? `UPDATE cellgate_audit_log SET actor_id = 'x' WHERE tenant_id = ?` : 'DELETE FROM cellgate_audit_log WHERE tenant_id = ?';
      raw.prepare(sql).run(tenantId);
    } finally {
      raw.close();
    }
  },
  teardown: (driver) => driver.close(),
});

describe.skipIf(Boolean(driverSkip('sqlite')))('sqlite driver', () => {
  it('creates the folder of the file, turns on WAL and foreign keys, and rejects raw UPDATE/DELETE of audit rows', async () => {
    const filename = join(dir, 'nested', 'deeper', 'app.db');
    const driver = sqliteStorage({ filename });
    await driver.migrate(conformanceModels);
    const tenantId = crypto.randomUUID();
    const record = newRecord({ tenantId, workspaceId: null, cellId: null }, invoiceFields());
    await driver.transaction((session) => session.appendAudit(auditFor(record, { actorId: 'a' })));
    await driver.close();

    const raw = new Database(filename);
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(() => raw.prepare(`UPDATE cellgate_audit_log SET actor_id = 'x' WHERE tenant_id = ?`).run(tenantId)).toThrow(/append-only/);
      expect(() => raw.prepare('DELETE FROM cellgate_audit_log WHERE tenant_id = ?').run(tenantId)).toThrow(/append-only/);
      expect(raw.prepare('SELECT actor_id FROM cellgate_audit_log WHERE tenant_id = ?').all(tenantId)).toEqual([{ actor_id: 'a' }]);
    } finally {
      raw.close();
    }
  });

  it('uses a database it is given without closing it, and applies its PRAGMAs', async () => {
    const database = new Database(join(dir, 'given.db'));
    const driver = sqliteStorage({ database });
    await driver.migrate(conformanceModels);
    expect(driver.capabilities).toEqual({ durable: true, multiProcess: true, appendOnlyAuditEnforced: true });
    await driver.close();
    expect(database.open).toBe(true);
    expect(database.pragma('foreign_keys', { simple: true })).toBe(1);
    database.close();
  });

  it('opens a database from a lazy factory only when first used', async () => {
    let opened = 0;
    const driver = sqliteStorage({ database: () => ((opened += 1), new Database(':memory:')) });
    expect(opened).toBe(0);
    await expectDuplicateIsConflict(driver);
    expect(opened).toBe(1);
    await driver.close();
  });

  it('keeps :memory: data in the process and says it is not durable', async () => {
    const driver = sqliteStorage({ filename: ':memory:' });
    expect(driver.capabilities.durable).toBe(false);
    await driver.migrate(conformanceModels);
    const scope = freshScope();
    const record = newRecord(scope, invoiceFields());
    await seed(driver, invoiceModel, [record]);
    expect(await driver.get(invoiceModel, scope, record.id)).toEqual(record);
    await driver.close();
  });

  it('holds the version check across processes sharing one file', async () => {
    const filename = join(dir, 'shared.db');
    const driver = sqliteStorage({ filename });
    await driver.migrate(conformanceModels);
    const scope = freshScope();
    const v1 = newRecord(scope, invoiceFields({ quantity: 0 }));
    await seed(driver, invoiceModel, [v1]);
    const writer = fileURLToPath(new URL('./fixtures/sqlite-writer.ts', import.meta.url));
    const processes = 3;
    const each = 15;
    await Promise.all(
      Array.from({ length: processes }, () =>
        run(process.execPath, ['--import', 'tsx', writer, filename, scope.tenantId, scope.workspaceId!, v1.id, String(each)], { timeout: 60_000 }),
      ),
    );
    const final = await driver.get(invoiceModel, scope, v1.id);
    expect(final?.version).toBe(processes * each + 1);
    expect(final?.fields.quantity).toBe(processes * each);
    const audit = await driver.listAudit({ tenantId: scope.tenantId, resourceId: v1.id, limit: 100 });
    expect(audit.records.map((record) => record.resourceVersion)).toEqual(Array.from({ length: processes * each }, (_, i) => processes * each + 1 - i));
    await driver.close();
  });

  it('maps a duplicate id to CONFLICT without SQL or table names in the message', async () => {
    const driver = sqliteStorage({ filename: ':memory:' });
    await expectDuplicateIsConflict(driver);
    await driver.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE when another writer holds the lock past the busy timeout', async () => {
    const filename = join(dir, 'busy.db');
    const driver = sqliteStorage({ filename, busyTimeoutMs: 50 });
    await driver.migrate(conformanceModels);
    const other = new Database(filename);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await driver
        .transaction((session) => session.insert(invoiceModel, newRecord(freshScope(), invoiceFields())))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CellgateError);
      expect([(error as CellgateError).status, (error as CellgateError).headers]).toEqual([503, { 'Retry-After': '1' }]);
      expect((error as CellgateError).message).not.toMatch(/SQLITE|locked|busy/i);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const record = newRecord(freshScope(), invoiceFields());
    await seed(driver, invoiceModel, [record]);
    expect(await driver.get(invoiceModel, record, record.id)).toEqual(record);
    await driver.close();
  });

  it('refuses unsafe table and field names before any SQL runs', async () => {
    const driver = sqliteStorage({ filename: ':memory:' });
    await expect(driver.migrate([{ ...invoiceModel, table: 'x; DROP TABLE y' }])).rejects.toBeInstanceOf(ConfigurationError);
    await expect(driver.migrate([{ ...invoiceModel, fields: [{ name: 'Bad"Name', type: 'string', nullable: false }] }])).rejects.toThrow(/safe SQL name/);
    await expect(driver.migrate([{ ...invoiceModel, fields: [{ name: 'version', type: 'string', nullable: false }] }])).rejects.toThrow(/base column/);
    await driver.close();
  });
});
