/**
 * The reference index (docs/decisions/B29.md) on real databases: `migrate` adds it to a table that
 * already holds rows (additive, through the same step that judges drift), and the lookups a delete
 * and a filtered list make read through it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { EntityStorageModel, StorageDriver } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { postgresStorage } from 'cellgate/storage/postgres';
import { freshScope, newRecord, seed } from '../../src/testing/storage-conformance-fixtures.ts';
import { indexName } from '../../src/storage/sql/identifiers.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';

const plain: EntityStorageModel = {
  resourceType: 'refidx.Task@v1',
  table: 'refidx_task_v1',
  scope: 'workspace-shared',
  fields: [
    { name: 'title', type: 'string', nullable: false },
    { name: 'project_id', type: 'string', format: 'uuid', nullable: false },
  ],
  indexedFields: ['created_at', 'updated_at'],
};
const referencing: EntityStorageModel = { ...plain, referenceFields: ['project_id'] };
const INDEX = indexName(plain.table, 'project_id_ref_idx');

/** Migrates without the reference, stores rows, migrates with it; answers what the lookups of a project's referrers find. */
async function addReferenceTo(driver: StorageDriver): Promise<{ found: string[]; projectId: string }> {
  await driver.migrate([plain]);
  const scope = freshScope();
  const projectId = crypto.randomUUID();
  const rows = [newRecord(scope, { title: 'a', project_id: projectId }), newRecord(scope, { title: 'b', project_id: crypto.randomUUID() })];
  await seed(driver, plain, rows);
  await driver.migrate([referencing]);
  const found = await driver.listReferrers(referencing, 'project_id', { ...scope, workspaceId: null }, projectId, 10);
  return { found: found.map((record) => record.id), projectId };
}

const sqliteSkip = driverSkip('sqlite');
describe.skipIf(sqliteSkip !== undefined)('reference index on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-refidx-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is added to a table holding rows, and the referrer lookup reads through it', async () => {
    const filename = join(dir, 'refs.db');
    const driver = sqliteStorage({ filename });
    try {
      const { found, projectId } = await addReferenceTo(driver);
      expect(found).toHaveLength(1);
      const raw = new Database(filename, { readonly: true });
      try {
        const index = raw.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).get(INDEX) as { sql: string } | undefined;
        expect(index?.sql).toMatch(/WHERE "deleted_at" IS NULL/);
        const plan = raw
          .prepare(`EXPLAIN QUERY PLAN SELECT * FROM ${plain.table} WHERE tenant_id = ? AND project_id = ? AND deleted_at IS NULL ORDER BY id LIMIT 10`)
          .all('t', projectId) as Array<{ detail: string }>;
        expect(plan.map((step) => step.detail).join(' | ')).toContain(INDEX);
      } finally {
        raw.close();
      }
    } finally {
      await driver.close();
    }
  });
});

const pgFiltered = driverSkip('postgres');
const server = pgFiltered ? { ok: false as const, skip: pgFiltered } : await startTestPostgres();
afterAll(async () => {
  if (server.ok) await server.db.stop();
});
describe.skipIf(!server.ok)('reference index on PostgreSQL', () => {
  it('is added to a table holding rows, and the referrer lookup reads through it', async () => {
    const url = server.ok ? server.db.url : '';
    const driver = postgresStorage({ connectionString: url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { found, projectId } = await addReferenceTo(driver);
      expect(found).toHaveLength(1);
      const { rows } = await client.query('SELECT indexdef FROM pg_indexes WHERE indexname = $1', [INDEX]);
      expect(rows[0]?.indexdef).toMatch(/WHERE \(deleted_at IS NULL\)/);
      // A small table is read whole by default; with sequential scans off the planner shows the index serves the lookup.
      await client.query('SET enable_seqscan = off');
      const plan = await client.query(
        `EXPLAIN SELECT * FROM ${plain.table} WHERE tenant_id = $1 AND project_id = $2 AND deleted_at IS NULL ORDER BY id LIMIT 10`,
        [crypto.randomUUID(), projectId],
      );
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain(INDEX);
    } finally {
      await client.end();
      await driver.close();
    }
  });
});
