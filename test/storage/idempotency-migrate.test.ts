/**
 * Upgrading a database made before idempotency keys had a lifetime: `migrate` adds the
 * `expires_at` column and its index (idempotently), expires the old rows (they may hold whole
 * answers with field values), and a repeat of an old key then creates anew. SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { conformanceModels } from '../../src/testing/storage-conformance-fixtures.ts';
import { createDatabase, startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-idem-migrate-'));
const server = driverSkip('postgres') ? { ok: false as const, skip: driverSkip('postgres')! } : await startTestPostgres();
afterAll(async () => {
  if (server.ok) await server.db.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Runs SQL against the database behind a driver, outside it. */
type RawSql = (text: string, values?: unknown[]) => Promise<Array<Record<string, unknown>>>;

const legacyRow = {
  tenantId: 't',
  actorId: 'a',
  key: 'old',
  requestHash: 'h',
  status: 201,
  body: '{"data":{"id":"x","paymentToken":"tok_legacy"},"meta":{"version":1}}',
  createdAt: '2026-01-01T00:00:00.000Z',
};

/** Turns a freshly migrated database back into the shape of the previous release, with one row. */
async function downgrade(raw: RawSql, placeholder: (index: number) => string): Promise<void> {
  await raw('DROP INDEX cellgate_idempotency_expires_idx');
  await raw('ALTER TABLE cellgate_idempotency DROP COLUMN expires_at');
  await raw("DELETE FROM cellgate_migrations WHERE name = 'cellgate:idempotency-expiry'");
  const columns = ['tenant_id', 'actor_id', 'key', 'request_hash', 'status', 'body', 'created_at'];
  await raw(`INSERT INTO cellgate_idempotency (${columns.join(', ')}) VALUES (${columns.map((_, index) => placeholder(index)).join(', ')})`, [
    legacyRow.tenantId,
    legacyRow.actorId,
    legacyRow.key,
    legacyRow.requestHash,
    legacyRow.status,
    legacyRow.body,
    legacyRow.createdAt,
  ]);
}

async function upgradeCase(driver: StorageDriver, raw: RawSql, placeholder: (index: number) => string, columnsOf: () => Promise<string[]>): Promise<void> {
  await driver.migrate(conformanceModels);
  await downgrade(raw, placeholder);
  expect(await columnsOf()).not.toContain('expires_at');
  await driver.migrate(conformanceModels);
  await driver.migrate(conformanceModels);
  expect(await columnsOf()).toContain('expires_at');
  // The old row is expired at once: its lifetime ends where it began.
  const old = await driver.getIdempotency('t', 'a', 'old');
  expect(old).toEqual({ ...legacyRow, expiresAt: legacyRow.createdAt });
  expect(
    await driver.transaction((session) =>
      session.putIdempotency({ ...legacyRow, requestHash: 'new', body: '{}', createdAt: '2026-02-01T00:00:00.000Z', expiresAt: '2026-02-02T00:00:00.000Z' }),
    ),
  ).toBe(true);
  expect((await driver.getIdempotency('t', 'a', 'old'))?.requestHash).toBe('new');
  expect(await driver.sweepIdempotency('2026-03-01T00:00:00.000Z', 10)).toBe(1);
  expect(await driver.getIdempotency('t', 'a', 'old')).toBeNull();
}

describe.skipIf(Boolean(driverSkip('sqlite')))('idempotency lifetime migration (sqlite)', () => {
  it('adds expires_at to an existing table, expires old rows, and migrates again as a no-op', async () => {
    const filename = join(dir, 'legacy.db');
    const driver = sqliteStorage({ filename });
    const db = new Database(filename);
    try {
      const raw: RawSql = async (text, values = []) =>
        /^\s*select|^\s*pragma/i.test(text) ? (db.prepare(text).all(...values) as Array<Record<string, unknown>>) : (db.prepare(text).run(...values), []);
      const columnsOf = async () => (await raw("SELECT name FROM pragma_table_info('cellgate_idempotency')")).map((row) => String(row.name));
      await upgradeCase(driver, raw, () => '?', columnsOf);
    } finally {
      db.close();
      await driver.close();
    }
  });
});

describe.skipIf(!server.ok)(`idempotency lifetime migration (postgres)${server.ok ? '' : `, skipped (reason: ${server.skip})`}`, () => {
  it('adds expires_at to an existing table, expires old rows, and migrates again as a no-op', async () => {
    if (!server.ok) return;
    const database = await createDatabase(server.db.url);
    const driver = postgresStorage({ connectionString: database.url });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const raw: RawSql = async (text, values = []) => (await client.query(text, values)).rows as Array<Record<string, unknown>>;
      const columnsOf = async () =>
        (await raw("SELECT column_name FROM information_schema.columns WHERE table_name = 'cellgate_idempotency'")).map((row) => String(row.column_name));
      await upgradeCase(driver, raw, (index) => `$${index + 1}`, columnsOf);
    } finally {
      await client.end();
      await driver.close();
      await database.stop();
    }
  });
});
