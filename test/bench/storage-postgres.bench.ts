/**
 * PostgreSQL driver benchmarks on a real server (`DATABASE_URL`'s, else a throwaway cluster),
 * printed as `[storage bench]` lines plus vitest's table:
 * - PATCH-equivalent write through the driver vs the same statements by hand on the same pg pool
 *   (BEGIN; SELECT; UPDATE; INSERT; INSERT; COMMIT), same run: ratio.
 * - List page 1 (pageSize 20, one filter, sort by an indexed field) on `BENCH_ROWS` rows: p50.
 * - History page (20 newest audit records) of a record with 10,000 versions: p50.
 */
import { bench } from 'vitest';
import {
  benchModel,
  describePostgresBench,
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

await describePostgresBench('postgres storage', 4, async ({ pool, driver }) => {
  async function patchByHand(subject: { id: string; tenantId: string; workspaceId: string | null }): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query('SELECT * FROM bench_order_v1 WHERE id = $1 AND tenant_id = $2 AND workspace_id = $3 AND cell_id IS NULL', [
        subject.id,
        subject.tenantId,
        subject.workspaceId,
      ]);
      const current = { ...patchSubject(), id: subject.id, tenantId: subject.tenantId, workspaceId: subject.workspaceId, version: rows[0].version as number };
      const next = nextState(current);
      const f = next.fields;
      const { rowCount } = await client.query(
        `UPDATE bench_order_v1 SET tenant_id = $1, workspace_id = $2, cell_id = $3, version = $4, created_at = $5, created_by = $6, updated_at = $7,
          updated_by = $8, deleted_at = $9, deleted_by = $10, status = $11, amount = $12, customer = $13, note = $14
          WHERE id = $15 AND version = $16 AND tenant_id = $17 AND workspace_id = $18 AND cell_id IS NULL`,
        [
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
        ],
      );
      if (rowCount !== 1) throw new Error('raw conflict');
      await client.query(
        'INSERT INTO cellgate_version_state (resource_type, id, version, tenant_id, workspace_id, cell_id, state) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [benchModel.resourceType, next.id, next.version, next.tenantId, next.workspaceId, null, JSON.stringify(next)],
      );
      const a = patchAudit(next);
      await client.query(
        `INSERT INTO cellgate_audit_log (id, tenant_id, workspace_id, cell_id, actor_id, actor_type, event_type, resource_type, resource_id, resource_version,
          base_version, occurred_at, request_id, trace_id, ip, user_agent, change_kind, diff, snapshot, redaction_applied, tags, reason)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
        [
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
          true,
          null,
          null,
        ],
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  const viaDriver = patchSubject();
  const byHand = patchSubject();
  await driver.transaction(async (session) => {
    await session.insert(benchModel, viaDriver);
    await session.insert(benchModel, byHand);
  });

  let started = performance.now();
  await pool.query(
    `INSERT INTO bench_order_v1 (id, tenant_id, workspace_id, cell_id, version, created_at, created_by, updated_at, updated_by, status, amount, customer)
    SELECT lpad(i::text, 8, '0') || '-0000-4000-8000-' || lpad(i::text, 12, '0'), $1, $2, NULL, 1,
      timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second', 'u', timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second', 'u',
      (ARRAY['DRAFT', 'SENT', 'PAID', 'OVERDUE'])[i % 4 + 1], ((i * 7919) % 100000) / 100.0, 'customer ' || (i % 1000)
    FROM generate_series(1::bigint, ${LARGE_ROWS}::bigint) AS i`,
    [largeScope.tenantId, largeScope.workspaceId],
  );
  await pool.query('VACUUM ANALYZE bench_order_v1');
  report(`postgres: inserted ${LARGE_ROWS} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  started = performance.now();
  const history = await seedHistory(driver);
  await pool.query('ANALYZE cellgate_audit_log');
  report(`postgres: seeded 20000 audit rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const historyPage = historyQuery(history);

  await measureStorage('postgres', driver, { viaDriver, byHand }, patchByHand, historyPage);

  bench('PATCH-equivalent through the driver', () => patchThroughDriver(driver, viaDriver));
  bench('PATCH-equivalent, same statements by hand (pg pool)', () => patchByHand(byHand));
  bench(`list page 1 of ${LARGE_ROWS} rows`, async () => void (await driver.list(benchModel, largeListQuery)));
  bench('history page, 10,000 versions', async () => void (await driver.listAudit(historyPage)));
});
