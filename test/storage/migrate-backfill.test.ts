/**
 * Backfill of a required field added with a default (issue #29 item 2), on a real SQLite file and
 * a real PostgreSQL: a run that fails mid-way (a trigger refuses one row of the second batch)
 * keeps the batches already committed and leaves the rest for the next `migrate`, which finishes
 * it; each batch is its own transaction; versions, `updated_at` and history are not touched; a
 * third run is a no-op. The drift judge accepts the half-filled column on the rerun.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { defineEntity, toStorageModel, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { MIGRATION_BACKFILL_BATCH } from '../../src/limits.ts';
import { freshScope, newRecord, seed } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-backfill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function choreModel(key: string, fields: Record<string, unknown>) {
  return toStorageModel(
    defineEntity({
      $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
      name: 'Chore',
      key,
      version: '1.0.0',
      description: 'A chore.',
      scope: 'workspace-shared',
      governance_tier: 'tier-2',
      permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
      fields: { title: { type: 'string' }, ...fields },
    } as Parameters<typeof defineEntity>[0]),
  );
}

interface Target {
  storage(): StorageDriver;
  /** Runs statements straight on the database. */
  exec(statement: string): Promise<void>;
  /** The rows of `table` as `[id, status]`, by id. */
  rows(table: string): Promise<Array<[string, string | null]>>;
  /** The rows of `table` as `[id, version, updated_at]`, by id. */
  stamps(table: string): Promise<Array<[string, number, string]>>;
  /** A trigger that refuses any UPDATE of the row `id`. */
  stopAt(table: string, id: string): string[];
  dropStop(table: string): string[];
}

function backfillCases(target: () => Target, key: string) {
  it('resumes a backfill that failed mid-way, batch by batch, without touching versions or history', async () => {
    const v1 = choreModel(key, {});
    const v2 = choreModel(key, { status: { type: 'string', enum: ['OPEN', 'DONE'], default: 'OPEN' } });
    const storage = target().storage();
    try {
      await storage.migrate([v1]);
      const scope = freshScope();
      const records = Array.from({ length: MIGRATION_BACKFILL_BATCH * 2 + 200 }, (_, index) => newRecord(scope, { title: `Chore ${index}` }));
      await seed(storage, v1, records);
      const ids = records.map((record) => record.id).sort();
      const before = await target().stamps(v1.table);
      // One row of the second batch refuses its update: the first batch is committed, the second rolled back.
      for (const statement of target().stopAt(v1.table, ids[MIGRATION_BACKFILL_BATCH + 200]!)) await target().exec(statement);
      await expect(storage.migrate([v2])).rejects.toThrow(/interrupted/);
      const half = await target().rows(v1.table);
      expect(half.filter(([, status]) => status === 'OPEN').map(([id]) => id)).toEqual(ids.slice(0, MIGRATION_BACKFILL_BATCH));

      for (const statement of target().dropStop(v1.table)) await target().exec(statement);
      await storage.migrate([v2]);
      const after = await target().rows(v1.table);
      expect(after.every(([, status]) => status === 'OPEN')).toBe(true);
      // Only the new column changed: versions and updated_at are as they were, no version state was added.
      expect(await target().stamps(v1.table)).toEqual(before);
      expect(await storage.getVersionState(v2, scope, ids[0]!, 2)).toBeNull();
      expect((await storage.getVersionState(v2, scope, ids[0]!, 1))?.fields).not.toHaveProperty('status');
      expect((await storage.listAudit({ tenantId: scope.tenantId, limit: 10 })).records).toHaveLength(0);
      // A third run finds nothing to do, and reads agree with the entity.
      await storage.migrate([v2]);
      expect((await storage.get(v2, scope, ids[0]!))?.fields.status).toBe('OPEN');
    } finally {
      await storage.close();
    }
  });
}

describe.skipIf(Boolean(driverSkip('sqlite')))('backfill on a SQLite file', () => {
  const file = join(dir, 'app.db');
  const raw = <T>(fn: (db: Database.Database) => T): T => {
    const db = new Database(file);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  backfillCases(
    () => ({
      storage: () => sqliteStorage({ filename: file }),
      exec: async (statement) => raw((db) => void db.exec(statement)),
      rows: async (table) => raw((db) => db.prepare(`SELECT id, status FROM ${table} ORDER BY id`).raw().all() as Array<[string, string | null]>),
      stamps: async (table) =>
        raw((db) => db.prepare(`SELECT id, version, updated_at FROM ${table} ORDER BY id`).raw().all() as Array<[string, number, string]>),
      stopAt: (table, id) => [`CREATE TRIGGER stop_backfill BEFORE UPDATE ON ${table} WHEN NEW.id = '${id}' BEGIN SELECT RAISE(ABORT, 'interrupted'); END`],
      dropStop: () => ['DROP TRIGGER stop_backfill'],
    }),
    'home.chore',
  );
});

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
afterAll(async () => {
  if (server.ok) await server.db.stop();
});

describe.skipIf(!server.ok)(`backfill on PostgreSQL${server.ok ? '' : ` (skipped: ${server.skip})`}`, () => {
  const url = server.ok ? server.db.url : '';
  const query = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await client.query({ text: statement, rowMode: 'array' });
    } finally {
      await client.end();
    }
  };
  backfillCases(
    () => ({
      storage: () => postgresStorage({ connectionString: url }),
      exec: async (statement) => void (await query(statement)),
      rows: async (table) => (await query(`SELECT id, status FROM ${table} ORDER BY id`)).rows as Array<[string, string | null]>,
      stamps: async (table) => (await query(`SELECT id, version, updated_at::text FROM ${table} ORDER BY id`)).rows as Array<[string, number, string]>,
      stopAt: (table, id) => [
        `CREATE FUNCTION stop_backfill() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'interrupted'; END $$`,
        `CREATE TRIGGER stop_backfill BEFORE UPDATE ON ${table} FOR EACH ROW WHEN (NEW.id = '${id}') EXECUTE FUNCTION stop_backfill()`,
      ],
      dropStop: (table) => [`DROP TRIGGER stop_backfill ON ${table}`, 'DROP FUNCTION stop_backfill()'],
    }),
    'home.chore',
  );
});
