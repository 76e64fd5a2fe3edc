/**
 * Count methods past the exact-count threshold, through the drivers: `exact` always counts,
 * `estimated` and `planned` count at most the threshold + 1 rows of the caller's scope and answer
 * that lower bound beyond it, saying so in `count`. Below the threshold they count exactly. Issue
 * #26 item 5: the figure never moves when another tenant writes (SQLite reported the table's
 * largest rowid, PostgreSQL the planner's estimate scaled by the table's size).
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

async function seed(driver: StorageDriver, rows = ROWS, where: typeof scope = scope): Promise<void> {
  await driver.migrate([model]);
  const at = '2026-01-01T00:00:00.000Z';
  await driver.transaction(async (session) => {
    for (let index = 0; index < rows; index += 1) {
      const record: StoredRecord = {
        ...where,
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

const query = (count: ListQuery['count'], kind?: string, where: typeof scope = scope): ListQuery => ({
  scope: where,
  filters: kind === undefined ? [] : [{ field: 'kind', operator: 'equals', value: kind }],
  sort: { field: 'created_at', direction: 'asc' },
  offset: 0,
  limit: 5,
  includeDeleted: false,
  count,
});

async function expectCounts(driver: StorageDriver): Promise<void> {
  expect(await driver.list(model, query('exact'))).toMatchObject({ total: ROWS, count: 'exact' });
  for (const method of ['estimated', 'planned'] as const) {
    const estimated = await driver.list(model, query(method));
    expect({ total: estimated.total, count: estimated.count }).toEqual({ total: EXACT_COUNT_THRESHOLD + 1, count: 'planned' });
    expect(estimated.records).toHaveLength(5);
  }
  // Few matches: counted exactly even when asked to estimate.
  expect(await driver.list(model, query('estimated', 'rare'))).toMatchObject({ total: 10, count: 'exact' });
  const plain = await driver.list(model, query(undefined));
  expect(plain.total).toBe(ROWS);
  expect(plain).not.toHaveProperty('count');
}

/** Another tenant's rows (another workspace too): they must not move the first tenant's figures. */
const otherScope = { tenantId: 'other', workspaceId: 'w2', cellId: null };

/**
 * Issue #26 item 5: a tenant with 1,001 rows reads its totals, another tenant writes 500 rows, and
 * the first tenant's totals do not change; the other tenant's are its own. `analyze` runs between
 * the seeding and the first read (PostgreSQL: the planner then knows the table, as in production).
 */
async function expectIsolatedCounts(driver: StorageDriver, analyze: () => Promise<void>): Promise<void> {
  await seed(driver, EXACT_COUNT_THRESHOLD + 1);
  await analyze();
  const figures = async (where: typeof scope) =>
    Promise.all(
      (['estimated', 'planned'] as const).map(async (method) =>
        (({ total, count }) => ({ total, count }))(await driver.list(model, query(method, undefined, where))),
      ),
    );
  const before = await figures(scope);
  await seed(driver, 500, otherScope);
  expect(await figures(scope)).toEqual(before);
  expect(before).toEqual([
    { total: EXACT_COUNT_THRESHOLD + 1, count: 'planned' },
    { total: EXACT_COUNT_THRESHOLD + 1, count: 'planned' },
  ]);
  expect(await figures(otherScope)).toEqual([
    { total: 500, count: 'exact' },
    { total: 500, count: 'exact' },
  ]);
}

/** A fresh SQLite file driver for `run`, removed afterwards. */
async function withSqlite(run: (driver: StorageDriver) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-count-'));
  const driver = sqliteStorage({ filename: join(dir, 'count.db') });
  try {
    await run(driver);
  } finally {
    await driver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();

describe('count methods past the threshold', () => {
  it('sqlite: a capped count, the lower bound beyond it', () =>
    withSqlite(async (driver) => {
      await seed(driver);
      await expectCounts(driver);
    }));

  it("sqlite: another tenant's writes do not move a tenant's estimate", () => withSqlite((driver) => expectIsolatedCounts(driver, async () => {})));

  afterAll(async () => {
    if (server.ok) await server.db.stop();
  });
  const skipped = server.ok ? '' : ` (skipped, reason: ${server.skip})`;

  /** A fresh PostgreSQL database driver for `run`, with `analyze` (ANALYZE of the table), dropped afterwards. */
  async function withPostgres(run: (driver: StorageDriver, analyze: () => Promise<void>) => Promise<void>): Promise<void> {
    if (!server.ok) return;
    const database = await createDatabase(server.db.url);
    const driver = postgresStorage({ connectionString: database.url, max: 2 });
    const pg = await import('pg');
    const pool = new pg.default.Pool({ connectionString: database.url, max: 1 });
    try {
      await run(driver, async () => void (await pool.query('ANALYZE count_row_v1')));
    } finally {
      await pool.end();
      await driver.close();
      await database.stop();
    }
  }

  it.skipIf(!server.ok)(`postgres: a capped count, the lower bound beyond it, also once the planner knows the table${skipped}`, () =>
    withPostgres(async (driver, analyze) => {
      await seed(driver);
      await analyze();
      await expectCounts(driver);
    }),
  );

  it.skipIf(!server.ok)(`postgres: another tenant's writes do not move a tenant's estimate${skipped}`, () =>
    withPostgres((driver, analyze) => expectIsolatedCounts(driver, analyze)),
  );
});
