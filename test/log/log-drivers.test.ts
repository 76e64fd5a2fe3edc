/**
 * The verifiable-log conformance cases on every driver (memory, a SQLite file, PostgreSQL),
 * run on their own so the log can be checked without the whole storage suite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryStorage } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { runStorageConformance } from 'cellgate/testing';
import { auditFor, conformanceModels, freshScope, invoiceFields, newRecord } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from '../storage/drivers.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-log-'));
const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (server.ok) await server.db.stop();
});

runStorageConformance({ name: 'memory (log)', skip: driverSkip('memory'), create: () => memoryStorage(), suites: ['verifiable-log'] });
runStorageConformance({
  name: 'sqlite (log)',
  skip: driverSkip('sqlite'),
  create: () => sqliteStorage({ filename: join(dir, 'log.db') }),
  suites: ['verifiable-log'],
});
runStorageConformance({
  name: 'postgres (log)',
  skip: server.ok ? undefined : server.skip,
  create: () => postgresStorage({ connectionString: server.ok ? server.db.url : '' }),
  suites: ['verifiable-log'],
});

describe.skipIf(Boolean(driverSkip('sqlite')))('verifiableLog: false', () => {
  it('keeps no log: no leaf is appended and storage.log is absent', async () => {
    const storage = sqliteStorage({ filename: join(dir, 'unlogged.db'), verifiableLog: false });
    await storage.migrate(conformanceModels);
    const record = newRecord(freshScope(), invoiceFields());
    await storage.transaction((session) => session.appendAudit(auditFor(record)));
    expect(storage.log).toBeUndefined();
    expect((await storage.listAudit({ tenantId: record.tenantId, limit: 10 })).records).toHaveLength(1);
    await storage.close();
    const raw = new Database(join(dir, 'unlogged.db'), { readonly: true });
    expect(raw.prepare('SELECT count(*) AS n FROM cellgate_log_leaves').get()).toEqual({ n: 0 });
    raw.close();
  });
});
