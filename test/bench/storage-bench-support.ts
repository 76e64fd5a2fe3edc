/**
 * Shared parts of the storage benchmarks: the bench entity, one PATCH-equivalent write through a
 * driver (get → conditional update → version state → audit, in one transaction), and p50 timing.
 */
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import type { AuditQuery, AuditRecord, EntityStorageModel, ListQuery, RecordScope, StorageDriver, StoredRecord } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { startTestPostgres } from '../support/postgres.ts';

/** Rows in the large-table list benchmark (`BENCH_ROWS` overrides). */
export const LARGE_ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
/** Versions of the record in the history benchmark. */
export const HISTORY_VERSIONS = 10_000;

/** A small workspace entity with indexed status, amount and timestamps. */
export const benchModel: EntityStorageModel = {
  resourceType: 'bench.Order@v1',
  table: 'bench_order_v1',
  scope: 'workspace-shared',
  fields: [
    { name: 'status', type: 'string', nullable: false },
    { name: 'amount', type: 'number', nullable: false },
    { name: 'customer', type: 'string', nullable: false },
    { name: 'note', type: 'string', nullable: true },
  ],
  indexedFields: ['status', 'amount', 'created_at', 'updated_at'],
};

/** Scope of the large table (the generated rows all live here). */
export const largeScope: RecordScope = { tenantId: 'bench-tenant', workspaceId: 'bench-ws', cellId: null };

/** One record to PATCH repeatedly. */
export function patchSubject(): StoredRecord {
  const at = new Date().toISOString();
  return {
    tenantId: crypto.randomUUID(),
    workspaceId: 'w',
    cellId: null,
    id: crypto.randomUUID(),
    version: 1,
    createdAt: at,
    createdBy: 'u',
    updatedAt: at,
    updatedBy: 'u',
    deletedAt: null,
    deletedBy: null,
    fields: { status: 'DRAFT', amount: 1, customer: 'Acme', note: null },
  };
}

/** The audit record of one PATCH of `next`. */
export function patchAudit(next: StoredRecord): AuditRecord {
  return {
    id: crypto.randomUUID(),
    tenantId: next.tenantId,
    workspaceId: next.workspaceId,
    cellId: next.cellId,
    actorId: 'u',
    actorType: 'user',
    eventType: 'entity.updated',
    resourceType: benchModel.resourceType,
    resourceId: next.id,
    resourceVersion: next.version,
    baseVersion: next.version - 1,
    occurredAt: next.updatedAt,
    requestId: 'r',
    traceId: null,
    ip: null,
    userAgent: null,
    changeKind: 'diff',
    diff: [{ op: 'replace', path: '/amount', value: next.fields.amount }],
    snapshot: null,
    redactionApplied: true,
    tags: null,
    reason: null,
  };
}

/** The next version of `record` with a new amount. */
export function nextState(record: StoredRecord): StoredRecord {
  return { ...record, version: record.version + 1, updatedAt: new Date().toISOString(), fields: { ...record.fields, amount: record.version + 1 } };
}

/** One PATCH-equivalent write through the driver. */
export async function patchThroughDriver(driver: StorageDriver, subject: StoredRecord): Promise<void> {
  await driver.transaction(async (session) => {
    const current = await session.get(benchModel, subject, subject.id);
    if (!current) throw new Error('bench record missing');
    const next = nextState(current);
    if (!(await session.update(benchModel, next, current.version))) throw new Error('bench conflict');
    await session.putVersionState(benchModel, next);
    await session.appendAudit(patchAudit(next));
  });
}

/** Median and mean milliseconds of `iterations` sequential runs of `fn` (after a short warm-up). */
export async function timing(fn: () => Promise<unknown> | unknown, iterations = 200): Promise<{ p50: number; mean: number }> {
  for (let i = 0; i < 10; i += 1) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)]!, mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

/**
 * p50 of two operations measured alternately (A, B, A, B, …), so load changes on the machine hit
 * both equally; the ratio `b.p50 / a.p50` is the share of the floor `b` that `a` reaches.
 */
export async function timingPair(
  a: () => Promise<unknown> | unknown,
  b: () => Promise<unknown> | unknown,
  iterations = 500,
): Promise<{ a: number; b: number }> {
  for (let i = 0; i < 10; i += 1) {
    await a();
    await b();
  }
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < iterations; i += 1) {
    for (const [index, fn] of [a, b].entries()) {
      const start = performance.now();
      await fn();
      samples[index]!.push(performance.now() - start);
    }
  }
  const p50 = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  return { a: p50(samples[0]), b: p50(samples[1]) };
}

/** Prints one result line in a stable, greppable form. */
export function report(line: string): void {
  console.log(`[storage bench] ${line}`);
}

/** Fills the audit log with `HISTORY_VERSIONS` versions of one record (plus noise of other records) in one transaction. */
export async function seedHistory(driver: StorageDriver): Promise<{ tenantId: string; resourceId: string }> {
  const subject = patchSubject();
  await driver.transaction(async (session) => {
    let state = subject;
    for (let version = 1; version <= HISTORY_VERSIONS; version += 1) {
      await session.appendAudit(patchAudit(state));
      await session.appendAudit(patchAudit({ ...state, id: crypto.randomUUID() }));
      state = nextState(state);
    }
  });
  return { tenantId: subject.tenantId, resourceId: subject.id };
}

/** Page 1 of the large table: one filter, sorted by an indexed field, total counted. */
export const largeListQuery: ListQuery = {
  scope: largeScope,
  filters: [{ field: 'status', operator: 'equals', value: 'PAID' }],
  sort: { field: 'amount', direction: 'desc' },
  offset: 0,
  limit: 20,
  includeDeleted: false,
};

/** The newest page of the seeded record's history. */
export function historyQuery(seeded: { tenantId: string; resourceId: string }): AuditQuery {
  return { tenantId: seeded.tenantId, resourceType: benchModel.resourceType, resourceId: seeded.resourceId, limit: 20 };
}

/** Measures and prints the three figures of one driver: PATCH vs the raw floor, list p50, history p50. */
export async function measureStorage(
  label: string,
  driver: StorageDriver,
  subjects: { viaDriver: StoredRecord; byHand: StoredRecord },
  patchByHand: (subject: StoredRecord) => unknown,
  history: AuditQuery,
): Promise<void> {
  const patch = await timingPair(
    () => patchThroughDriver(driver, subjects.viaDriver),
    () => patchByHand(subjects.byHand),
    1000,
  );
  report(
    `${label} PATCH-equivalent (p50, measured alternately): driver ${patch.a.toFixed(3)} ms, same statements by hand ${patch.b.toFixed(3)} ms, driver reaches ${(patch.b / patch.a).toFixed(2)} of the raw floor (target >= 0.5)`,
  );
  const list = await timing(() => driver.list(benchModel, largeListQuery), 50);
  report(`${label} list page 1 of ${LARGE_ROWS} rows (status = PAID, sort amount desc, total counted): p50 ${list.p50.toFixed(2)} ms`);
  const page = await timing(() => driver.listAudit(history), 200);
  report(`${label} history page (20 newest of a record with ${HISTORY_VERSIONS} versions): p50 ${page.p50.toFixed(3)} ms`);
}

/** The PostgreSQL side of a storage benchmark: a pool and the driver on it, the bench entity migrated. */
export interface PostgresBench {
  pool: pg.Pool;
  driver: StorageDriver;
}

/**
 * A benchmark suite on PostgreSQL (`DATABASE_URL`'s server, else a throwaway cluster): a fresh
 * database, a pool of `max` connections, the driver on it with the bench entity migrated, all
 * closed after the suite. Without a server the suite is skipped and a `postgres skipped` line says why.
 */
export async function describePostgresBench(title: string, max: number, body: (bench: PostgresBench) => Promise<void>): Promise<void> {
  const server = await startTestPostgres();
  if (!server.ok) report(`postgres skipped: ${server.skip}`);
  // reason: no PostgreSQL server could be reached or started (the line above says why).
  describe.skipIf(!server.ok)(title, async () => {
    if (!server.ok) return;
    const pool = new pg.Pool({ connectionString: server.db.url, max });
    const driver = postgresStorage({ pool });
    afterAll(async () => {
      await driver.close();
      await pool.end();
      await server.db.stop();
    });
    await driver.migrate([benchModel]);
    await body({ pool, driver });
  });
}
