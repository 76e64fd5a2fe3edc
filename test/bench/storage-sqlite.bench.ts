/**
 * SQLite driver benchmarks (figures printed as `[storage bench]` lines, plus vitest's table):
 * - PATCH-equivalent write through the driver vs the same statements by hand on better-sqlite3
 *   (prepared statements, BEGIN IMMEDIATE … COMMIT), same file settings, same run: ratio of hz.
 * - List page 1 (pageSize 20, one filter, sort by an indexed field) on `BENCH_ROWS` rows: p50.
 * - History page (20 newest audit records) of a record with 10,000 versions: p50.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { bench, describe } from 'vitest';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import {
  benchModel,
  historyQuery,
  LARGE_ROWS,
  largeListQuery,
  largeScope,
  measureStorage,
  nextState,
  patchAudit,
  patchSubject,
  patchThroughDriver,
  report,
  seedHistory,
} from './storage-bench-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-bench-sqlite-'));
// The bench runner ends its worker without teardown hooks; the table is large, so remove it on exit.
const removeTable = () => rmSync(dir, { recursive: true, force: true });
process.once('exit', removeTable);
process.once('SIGTERM', () => {
  removeTable();
  process.exit(143);
});
const file = join(dir, 'bench.db');
const driver = sqliteStorage({ filename: file });
await driver.migrate([benchModel]);

// The raw floor: the same five statements on a second connection with the same PRAGMAs.
const raw = new Database(file);
raw.pragma('journal_mode = WAL');
raw.pragma('busy_timeout = 5000');
raw.pragma('synchronous = NORMAL');
const rawGet = raw.prepare('SELECT * FROM bench_order_v1 WHERE id = ? AND tenant_id = ? AND workspace_id = ? AND cell_id IS NULL');
const rawUpdate = raw.prepare(`UPDATE bench_order_v1 SET tenant_id = ?, workspace_id = ?, cell_id = ?, version = ?, created_at = ?, created_by = ?,
  updated_at = ?, updated_by = ?, deleted_at = ?, deleted_by = ?, status = ?, amount = ?, customer = ?, note = ?
  WHERE id = ? AND version = ? AND tenant_id = ? AND workspace_id = ? AND cell_id IS NULL`);
const rawVersion = raw.prepare(
  'INSERT INTO cellgate_version_state (resource_type, id, version, tenant_id, workspace_id, cell_id, state) VALUES (?, ?, ?, ?, ?, ?, ?)',
);
const rawAudit =
  raw.prepare(`INSERT INTO cellgate_audit_log (id, tenant_id, workspace_id, cell_id, actor_id, actor_type, event_type, resource_type, resource_id,
  resource_version, base_version, occurred_at, request_id, trace_id, ip, user_agent, change_kind, diff, snapshot, redaction_applied, tags, reason)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
const begin = raw.prepare('BEGIN IMMEDIATE');
const commit = raw.prepare('COMMIT');

function patchByHand(subject: { id: string; tenantId: string; workspaceId: string | null }): void {
  begin.run();
  const row = rawGet.get(subject.id, subject.tenantId, subject.workspaceId) as Record<string, unknown>;
  const current = { ...patchSubject(), id: subject.id, tenantId: subject.tenantId, workspaceId: subject.workspaceId, version: row.version as number };
  const next = nextState(current);
  const f = next.fields;
  const changed = rawUpdate.run(
    next.tenantId,
    next.workspaceId,
    null,
    next.version,
    next.createdAt,
    'u',
    next.updatedAt,
    'u',
    null,
    null,
    f.status,
    f.amount,
    f.customer,
    f.note,
    next.id,
    current.version,
    next.tenantId,
    next.workspaceId,
  ).changes;
  if (changed !== 1) throw new Error('raw conflict');
  rawVersion.run(benchModel.resourceType, next.id, next.version, next.tenantId, next.workspaceId, null, JSON.stringify(next));
  const a = patchAudit(next);
  rawAudit.run(
    a.id,
    a.tenantId,
    a.workspaceId,
    a.cellId,
    a.actorId,
    a.actorType,
    a.eventType,
    a.resourceType,
    a.resourceId,
    a.resourceVersion,
    a.baseVersion,
    a.occurredAt,
    a.requestId,
    a.traceId,
    a.ip,
    a.userAgent,
    a.changeKind,
    JSON.stringify(a.diff),
    null,
    1,
    null,
    null,
  );
  commit.run();
}

const viaDriver = patchSubject();
const byHand = patchSubject();
await driver.transaction((session) => session.insert(benchModel, viaDriver));
await driver.transaction((session) => session.insert(benchModel, byHand));

// Large table, generated inside SQLite in one statement.
let started = performance.now();
raw.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${LARGE_ROWS})
  INSERT INTO bench_order_v1 (id, tenant_id, workspace_id, cell_id, version, created_at, created_by, updated_at, updated_by, status, amount, customer)
  SELECT printf('%08d-0000-4000-8000-%012d', i, i), '${largeScope.tenantId}', '${largeScope.workspaceId}', NULL, 1,
    strftime('%Y-%m-%dT%H:%M:%fZ', 1767225600 + i, 'unixepoch'), 'u', strftime('%Y-%m-%dT%H:%M:%fZ', 1767225600 + i, 'unixepoch'), 'u',
    CASE i % 4 WHEN 0 THEN 'DRAFT' WHEN 1 THEN 'SENT' WHEN 2 THEN 'PAID' ELSE 'OVERDUE' END, ((i * 7919) % 100000) / 100.0, 'customer ' || (i % 1000)
  FROM n`);
raw.exec('ANALYZE');
report(`sqlite: inserted ${LARGE_ROWS} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
started = performance.now();
const history = await seedHistory(driver);
report(`sqlite: seeded ${2 * 10_000} audit rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const historyPage = historyQuery(history);

await measureStorage('sqlite', driver, { viaDriver, byHand }, patchByHand, historyPage);

describe('sqlite PATCH-equivalent write', () => {
  bench('through the driver', () => patchThroughDriver(driver, viaDriver));
  bench('same statements by hand (better-sqlite3)', () => patchByHand(byHand));
});

describe(`sqlite reads`, () => {
  bench(`list page 1 of ${LARGE_ROWS} rows`, async () => void (await driver.list(benchModel, largeListQuery)));
  bench('history page, 10,000 versions', async () => void (await driver.listAudit(historyPage)));
});
