/**
 * The maintenance path (docs/lifecycle.md#the-maintenance-path): the audit table's append-only
 * guard lets UPDATE and DELETE through only inside a transaction holding its own grant row, on
 * SQLite (real file) and PostgreSQL (real server). Outside, and after a rolled-back maintenance
 * transaction, every change is refused and the grant table is empty.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { memoryStorage } from 'cellgate';
import type { StorageDriver } from 'cellgate';
import { eventResourceId } from '../../src/storage/sql/events.ts';
import { inMaintenance } from '../../src/storage/sql/maintenance.ts';
import { postgresDialect } from '../../src/storage/postgres/postgres-dialect.ts';
import { createSqliteDialect } from '../../src/storage/sqlite/sqlite-dialect.ts';
import type { SqlDialect, SqlSchema } from '../../src/storage/sql/sql-dialect.ts';
import { auditFor, conformanceModels, freshScope, invoiceFields, newRecord } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';

async function seedAudit(driver: StorageDriver): Promise<string> {
  await driver.migrate(conformanceModels);
  const record = newRecord(freshScope(), invoiceFields());
  await driver.transaction((session) => session.appendAudit(auditFor(record, { actorId: 'a' })));
  return record.tenantId;
}

/** The same checks on both SQL dialects, through a Kysely of the test's own on the same database. */
async function checkPath(dialect: SqlDialect, db: Kysely<SqlSchema>, tenantId: string) {
  const actors = async () =>
    (await sql<{ actor_id: string }>`SELECT actor_id FROM cellgate_audit_log WHERE tenant_id = ${tenantId}`.execute(db)).rows.map((row) => row.actor_id);
  const grants = async () => (await sql<{ n: number }>`SELECT count(*) AS n FROM cellgate_audit_maintenance`.execute(db)).rows[0]!.n;

  await expect(sql`UPDATE cellgate_audit_log SET actor_id = 'x' WHERE tenant_id = ${tenantId}`.execute(db)).rejects.toThrow(/append-only/);
  await expect(dialect.transaction(db, (tx) => sql`DELETE FROM cellgate_audit_log WHERE tenant_id = ${tenantId}`.execute(tx))).rejects.toThrow(/append-only/);

  // A maintenance transaction that throws leaves the record and no grant behind.
  await expect(
    inMaintenance(dialect, db, 'erasure', async (tx) => {
      await sql`UPDATE cellgate_audit_log SET actor_id = 'erased' WHERE tenant_id = ${tenantId}`.execute(tx);
      throw new Error('changed my mind');
    }),
  ).rejects.toThrow('changed my mind');
  expect(await actors()).toEqual(['a']);
  expect(Number(await grants())).toBe(0);

  await inMaintenance(dialect, db, 'erasure', (tx) => sql`UPDATE cellgate_audit_log SET actor_id = 'erased' WHERE tenant_id = ${tenantId}`.execute(tx));
  expect(await actors()).toEqual(['erased']);
  expect(Number(await grants())).toBe(0);
  // The guard is back in force after commit.
  await expect(sql`DELETE FROM cellgate_audit_log WHERE tenant_id = ${tenantId}`.execute(db)).rejects.toThrow(/append-only/);

  await inMaintenance(dialect, db, 'retention', (tx) => sql`DELETE FROM cellgate_audit_log WHERE tenant_id = ${tenantId}`.execute(tx));
  expect(await actors()).toEqual([]);
}

describe('maintenance path on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-maintenance-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets history change only inside a maintenance transaction', async () => {
    const filename = join(dir, 'audit.db');
    const driver = sqliteStorage({ filename });
    const tenantId = await seedAudit(driver);
    await driver.close();
    const db = new Kysely<SqlSchema>({ dialect: new SqliteDialect({ database: new Database(filename) }) });
    try {
      await checkPath(createSqliteDialect(5_000), db, tenantId);
      // Erasure finds a record's outbox events through the record index, not a walk of the outbox.
      const lookup = sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT seq FROM cellgate_events
        WHERE tenant_id = 't' AND resource_type = 'r' AND ${eventResourceId(createSqliteDialect(5_000))} = 'x' ORDER BY seq`;
      expect((await lookup.execute(db)).rows.map((row) => row.detail).join('\n')).toContain('cellgate_events_record_idx');
    } finally {
      await db.destroy();
    }
  });
});

const server = await startTestPostgres();
describe.skipIf(!server.ok)('maintenance path on PostgreSQL', () => {
  // reason: without a PostgreSQL server (DATABASE_URL or local binaries) there is nothing to test against.
  afterAll(async () => {
    if (server.ok) await server.db.stop();
  });

  it('lets history change only inside a maintenance transaction', async () => {
    if (!server.ok) return;
    const driver = postgresStorage({ connectionString: server.db.url });
    const tenantId = await seedAudit(driver);
    await driver.close();
    const db = new Kysely<SqlSchema>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: server.db.url, max: 2 }) }) });
    try {
      await checkPath(postgresDialect, db, tenantId);
      // Erasure finds a record's outbox events through the record index (sequential scans off: the
      // table is tiny, and the question is whether the index can serve the query at all).
      const plan = await db.connection().execute(async (connection) => {
        await sql`SET enable_seqscan = off`.execute(connection);
        const explained = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT seq FROM cellgate_events
          WHERE tenant_id = 't' AND resource_type = 'r' AND ${eventResourceId(postgresDialect)} = 'x' ORDER BY seq`.execute(connection);
        await sql`RESET enable_seqscan`.execute(connection);
        return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      expect(plan).toContain('cellgate_events_record_idx');
      // A grant row of another transaction opens nothing: the guard checks this transaction's id.
      const second = postgresStorage({ connectionString: server.db.url });
      const tenant = await seedAudit(second);
      await second.close();
      await sql`INSERT INTO cellgate_audit_maintenance (grant_key, reason, started_at) VALUES ('1', 'erasure', 'x')`.execute(db);
      await expect(sql`DELETE FROM cellgate_audit_log WHERE tenant_id = ${tenant}`.execute(db)).rejects.toThrow(/append-only/);
    } finally {
      await db.destroy();
    }
  });
});

describe('maintenance on the memory driver', () => {
  it('runs in one staged transaction: a throwing one leaves no trace', async () => {
    const driver = memoryStorage();
    await driver.migrate(conformanceModels);
    const record = newRecord(freshScope(), invoiceFields());
    await expect(
      driver.maintenance('purge', async (session) => {
        expect(session.reason).toBe('purge');
        await session.appendAudit(auditFor(record, { actorId: 'a' }));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect((await driver.listAudit({ tenantId: record.tenantId, limit: 10 })).records).toEqual([]);
  });
});
