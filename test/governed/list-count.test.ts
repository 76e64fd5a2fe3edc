/**
 * Count methods past the exact-count threshold, through the drivers: `exact` always counts,
 * `estimated` and `planned` estimate beyond it (SQLite: a capped count, then the table's size;
 * PostgreSQL: the planner), and say so in `count`. Below the threshold `estimated` counts exactly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { EXACT_COUNT_THRESHOLD } from '../../src/limits.ts';
import type { EntityStorageModel, ListQuery, StorageDriver, StoredRecord } from 'cellgate';
import { driverSkip } from '../storage/drivers.ts';
import { createDatabase, startTestPostgres } from '../support/postgres.ts';

const model: EntityStorageModel = {
  resourceType: 'count.Row@v1',
  table: 'count_row_v1',
  scope: 'workspace-shared',
  fields: [{ name: 'kind', type: 'string', nullable: false }],
  indexedFields: ['kind', 'created_at', 'updated_at'],
};
const scope = { tenantId: 't', workspaceId: 'w', cellId: null };
const ROWS = EXACT_COUNT_THRESHOLD + 200;

async function seed(driver: StorageDriver): Promise<void> {
  await driver.migrate([model]);
  const at = '2026-01-01T00:00:00.000Z';
  await driver.transaction(async (session) => {
    for (let index = 0; index < ROWS; index += 1) {
      const record: StoredRecord = {
        ...scope,
        id: crypto.randomUUID(),
        version: 1,
        createdAt: at,
        createdBy: 'u',
        updatedAt: at,
        updatedBy: 'u',
        deletedAt: null,
        deletedBy: null,
        fields: { kind: index < 10 ? 'rare' : 'common' },
      };
      await session.insert(model, record);
    }
  });
}

const query = (count: ListQuery['count'], kind?: string): ListQuery => ({
  scope,
  filters: kind === undefined ? [] : [{ field: 'kind', operator: 'equals', value: kind }],
  sort: { field: 'created_at', direction: 'asc' },
  offset: 0,
  limit: 5,
  includeDeleted: false,
  count,
});

async function expectCounts(driver: StorageDriver, estimate: (total: number) => void): Promise<void> {
  expect(await driver.list(model, query('exact'))).toMatchObject({ total: ROWS, count: 'exact' });
  const estimated = await driver.list(model, query('estimated'));
  expect(estimated.count).toBe('planned');
  expect(estimated.records).toHaveLength(5);
  estimate(estimated.total);
  // Few matches: counted exactly even when asked to estimate.
  expect(await driver.list(model, query('estimated', 'rare'))).toMatchObject({ total: 10, count: 'exact' });
  const plain = await driver.list(model, query(undefined));
  expect(plain.total).toBe(ROWS);
  expect(plain).not.toHaveProperty('count');
}

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();

describe('count methods past the threshold', () => {
  it('sqlite: a capped count, then the table size as the estimate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cellgate-count-'));
    const driver = sqliteStorage({ filename: join(dir, 'count.db') });
    try {
      await seed(driver);
      await expectCounts(driver, (total) => expect(total).toBeGreaterThan(EXACT_COUNT_THRESHOLD));
    } finally {
      await driver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  afterAll(async () => {
    if (server.ok) await server.db.stop();
  });
  it.skipIf(!server.ok)(`postgres: the planner's estimate${server.ok ? '' : ` (skipped, reason: ${server.skip})`}`, async () => {
    if (!server.ok) return;
    const database = await createDatabase(server.db.url);
    const driver = postgresStorage({ connectionString: database.url, max: 2 });
    try {
      await seed(driver);
      const pg = await import('pg');
      const pool = new pg.default.Pool({ connectionString: database.url, max: 1 });
      await pool.query('ANALYZE count_row_v1');
      await pool.end();
      // After ANALYZE the planner knows the table; its estimate is close, not necessarily exact.
      await expectCounts(driver, (total) => expect(Math.abs(total - ROWS)).toBeLessThan(ROWS * 0.2));
    } finally {
      await driver.close();
      await database.stop();
    }
  });
});
