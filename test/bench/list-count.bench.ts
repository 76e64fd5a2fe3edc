/**
 * Lists at scale with `Prefer: count=estimated`: page 1 (pageSize 20, one filter, sorted by an
 * indexed field) of a collection of `BENCH_ROWS` rows (default 1,000,000) against the same page of
 * a 1,000-row collection in the same table, on SQLite and PostgreSQL. Target: the large page
 * within 3× of the small one with `estimated`; `exact` is printed alongside to show what the full
 * count costs. Printed as `[storage bench]` lines plus vitest's table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, bench, describe } from 'vitest';
import type { CountMethod, ListQuery, StorageDriver } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { benchModel, describePostgresBench, LARGE_ROWS, largeListQuery, largeScope, report, timingPair } from './storage-bench-support.ts';

const SMALL_ROWS = 1_000;
const smallScope = { ...largeScope, workspaceId: 'bench-ws-small' };
const page = (scope: typeof largeScope, count: CountMethod): ListQuery => ({ ...largeListQuery, scope, count });

/** Prints the large/small ratio of page 1 for each count method. */
async function measure(label: string, driver: StorageDriver): Promise<void> {
  for (const count of ['estimated', 'exact'] as const) {
    const large = await driver.list(benchModel, page(largeScope, count));
    const { a, b } = await timingPair(
      () => driver.list(benchModel, page(largeScope, count)),
      () => driver.list(benchModel, page(smallScope, count)),
      100,
    );
    const target = count === 'estimated' ? ` (target <= 3, ${a / b <= 3 ? 'met' : 'NOT met'})` : '';
    report(
      `${label} page 1, count=${count}: ${LARGE_ROWS} rows p50 ${a.toFixed(2)} ms (total ${large.total}, ${large.count}), ${SMALL_ROWS} rows p50 ${b.toFixed(2)} ms, ratio ${(a / b).toFixed(2)}${target}`,
    );
  }
}

const insertColumns = 'id, tenant_id, workspace_id, cell_id, version, created_at, created_by, updated_at, updated_by, status, amount, customer';

// --- SQLite -----------------------------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'cellgate-bench-count-'));
const sqlite = sqliteStorage({ filename: join(dir, 'bench.db') });
await sqlite.migrate([benchModel]);
{
  const raw = new Database(join(dir, 'bench.db'));
  const started = performance.now();
  for (const [scope, rows, offset] of [
    [largeScope, LARGE_ROWS, 0],
    [smallScope, SMALL_ROWS, LARGE_ROWS],
  ] as const) {
    raw.exec(`WITH RECURSIVE n(i) AS (SELECT ${offset + 1} UNION ALL SELECT i + 1 FROM n WHERE i < ${offset + rows})
      INSERT INTO bench_order_v1 (${insertColumns})
      SELECT printf('%08d-0000-4000-8000-%012d', i, i), '${scope.tenantId}', '${scope.workspaceId}', NULL, 1,
        strftime('%Y-%m-%dT%H:%M:%fZ', 1767225600 + i, 'unixepoch'), 'u', strftime('%Y-%m-%dT%H:%M:%fZ', 1767225600 + i, 'unixepoch'), 'u',
        CASE i % 4 WHEN 0 THEN 'DRAFT' WHEN 1 THEN 'SENT' WHEN 2 THEN 'PAID' ELSE 'OVERDUE' END, ((i * 7919) % 100000) / 100.0, 'customer ' || (i % 1000)
      FROM n`);
  }
  raw.exec('ANALYZE');
  raw.close();
  report(`sqlite: inserted ${LARGE_ROWS + SMALL_ROWS} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
await measure('sqlite', sqlite);

describe('sqlite list page 1 with count=estimated', () => {
  afterAll(async () => {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });
  bench(`${LARGE_ROWS} rows`, async () => void (await sqlite.list(benchModel, page(largeScope, 'estimated'))));
  bench(`${SMALL_ROWS} rows`, async () => void (await sqlite.list(benchModel, page(smallScope, 'estimated'))));
});

// --- PostgreSQL -------------------------------------------------------------------------------------
await describePostgresBench('postgres list page 1 with count=estimated', 2, async ({ pool, driver }) => {
  const started = performance.now();
  for (const [scope, rows, offset] of [
    [largeScope, LARGE_ROWS, 0],
    [smallScope, SMALL_ROWS, LARGE_ROWS],
  ] as const) {
    await pool.query(
      `INSERT INTO bench_order_v1 (${insertColumns})
      SELECT lpad(i::text, 8, '0') || '-0000-4000-8000-' || lpad(i::text, 12, '0'), $1, $2, NULL, 1,
        timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second', 'u', timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second', 'u',
        (ARRAY['DRAFT', 'SENT', 'PAID', 'OVERDUE'])[i % 4 + 1], ((i * 7919) % 100000) / 100.0, 'customer ' || (i % 1000)
      FROM generate_series(${offset + 1}::bigint, ${offset + rows}::bigint) AS i`,
      [scope.tenantId, scope.workspaceId],
    );
  }
  await pool.query('VACUUM ANALYZE bench_order_v1');
  report(`postgres: inserted ${LARGE_ROWS + SMALL_ROWS} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await measure('postgres', driver);
  bench(`${LARGE_ROWS} rows`, async () => void (await driver.list(benchModel, page(largeScope, 'estimated'))));
  bench(`${SMALL_ROWS} rows`, async () => void (await driver.list(benchModel, page(smallScope, 'estimated'))));
});
