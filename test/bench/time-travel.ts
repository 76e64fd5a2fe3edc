/**
 * Time travel against plain reads (issue #30, docs/time-travel.md), on SQLite and PostgreSQL,
 * through the governed service (no HTTP, so the ratios show the storage and core cost):
 *
 * - as-of read of one record (`service.asOf`, a random instant of its history) vs a plain GET;
 * - diff of versions 1 and V (`service.changes`) vs a plain GET;
 * - list as of an instant, page 1 (20 records) vs a plain list page 1.
 *
 * Each reports p50/p95 in milliseconds, the ratio of the p50s, and the rows the storage handed
 * back per call (a counting wrapper around the driver). Records and their V version states are
 * written straight through the driver in large transactions, so seeding is quick.
 *
 * Usage: npx tsx test/bench/time-travel.ts [sqlite|postgres|both]
 * Scale: TIME_TRAVEL_BENCH_RECORDS (default 1,000), TIME_TRAVEL_BENCH_VERSIONS (default 20),
 * TIME_TRAVEL_BENCH_SAMPLES (default 300); the issue's run is RECORDS=100000 VERSIONS=20.
 * PostgreSQL: `DATABASE_URL`'s server, else a throwaway cluster from the local installation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGovernedService, defineEntity, type StorageDriver, type StoredRecord } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { createDatabase, serverBinaries, startCluster, type TestPostgres } from '../support/postgres.ts';

const [which = 'both'] = process.argv.slice(2);
const RECORDS = Number(process.env.TIME_TRAVEL_BENCH_RECORDS ?? 1_000);
const VERSIONS = Number(process.env.TIME_TRAVEL_BENCH_VERSIONS ?? 20);
const SAMPLES = Number(process.env.TIME_TRAVEL_BENCH_SAMPLES ?? 300);
const LIST_SAMPLES = Math.max(5, Math.min(SAMPLES, Math.ceil(200_000 / RECORDS)));
const tenantId = '11111111-1111-4111-8111-111111111111';
const workspaceId = '33333333-3333-4333-8333-333333333333';
const START = Date.parse('2026-01-01T00:00:00.000Z');
const STEP_MS = 60_000;

const Deal = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Deal',
  key: 'bench.deal',
  version: '1.0.0',
  description: 'A deal of the time-travel bench',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { title: { type: 'string' }, stage: { type: 'string', enum: ['lead', 'won', 'lost'] }, amount: { type: 'number' } },
  data: { filtering: { allowedFields: ['stage'] }, sorting: { allowedFields: ['amount'] } },
});
const ctx = {
  actor: { id: 'bench', type: 'user' as const, tenantId, roles: ['admin'], workspaces: {}, permissions: ['audit:read'] },
  scope: { workspaceId },
};

/** Rows each storage read hands back, counted per call kind. */
const rows = { count: 0 };
const COUNTED: Record<string, (result: unknown) => number> = {
  get: (result) => (result === null ? 0 : 1),
  getVersionState: (result) => (result === null ? 0 : 1),
  getVersionStateAt: (result) => (result === null ? 0 : 1),
  listVersionStatesAt: (result) => (result as unknown[]).length,
  list: (result) => (result as { records: unknown[] }).records.length + 1,
};

/** The driver with every read of {@link COUNTED} adding the rows it returned to `rows.count`. */
function counting(driver: StorageDriver): StorageDriver {
  return new Proxy(driver, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      const count = typeof name === 'string' ? COUNTED[name] : undefined;
      if (count === undefined || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        rows.count += count(result);
        return result;
      };
    },
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Writes RECORDS records with VERSIONS version states each, version v at START + v minutes (+ the record's offset). */
async function seed(driver: StorageDriver, model: ReturnType<typeof createGovernedService>['model']): Promise<string[]> {
  const ids: string[] = [];
  const batch = 250;
  for (let first = 0; first < RECORDS; first += batch) {
    await driver.transaction(async (session) => {
      for (let index = first; index < Math.min(RECORDS, first + batch); index += 1) {
        const id = crypto.randomUUID();
        ids.push(id);
        const created = iso(START + index);
        let state: StoredRecord | undefined;
        for (let version = 1; version <= VERSIONS; version += 1) {
          state = {
            id,
            tenantId,
            workspaceId,
            cellId: null,
            version,
            createdAt: created,
            createdBy: 'bench',
            updatedAt: iso(START + index + (version - 1) * STEP_MS),
            updatedBy: 'bench',
            deletedAt: null,
            deletedBy: null,
            fields: { title: `deal ${index} v${version}`, stage: version % 3 === 0 ? 'won' : 'lead', amount: (index * 7 + version) % 1000 },
          };
          await session.putVersionState(model, state);
        }
        await session.insert(model, state!);
      }
    });
  }
  return ids;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

interface Measured {
  p50: number;
  p95: number;
  rowsPerCall: number;
}

/** Times `samples` calls of `call` (after a warm-up), and the rows the storage returned per call. */
async function measure(samples: number, call: (index: number) => Promise<unknown>): Promise<Measured> {
  for (let index = 0; index < Math.min(20, samples); index += 1) await call(index);
  const times: number[] = [];
  rows.count = 0;
  for (let index = 0; index < samples; index += 1) {
    const started = performance.now();
    await call(index);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), rowsPerCall: rows.count / samples };
}

const format = (m: Measured) => `p50 ${m.p50.toFixed(3)} ms  p95 ${m.p95.toFixed(3)} ms  rows/call ${m.rowsPerCall.toFixed(1)}`;

async function bench(name: string, raw: StorageDriver): Promise<void> {
  const storage = counting(raw);
  const deals = createGovernedService({ entity: Deal, storage });
  await raw.migrate([deals.model]);
  const seeded = performance.now();
  const ids = await seed(raw, deals.model);
  console.log(`\n${name}: ${RECORDS} records × ${VERSIONS} versions seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const pick = (index: number) => ids[(index * 7919) % ids.length]!;
  // An instant inside the history of every record: between its versions, never at the current one.
  const instant = (index: number) => iso(START + RECORDS + ((index * 13) % (VERSIONS - 1)) * STEP_MS + STEP_MS / 2);

  const get = await measure(SAMPLES, (index) => deals.get(ctx, pick(index)));
  const asOf = await measure(SAMPLES, (index) => deals.asOf(ctx, pick(index), instant(index)));
  const diff = await measure(SAMPLES, (index) => deals.changes(ctx, pick(index), { from: 1, to: VERSIONS }));
  const list = await measure(LIST_SAMPLES, () => deals.list(ctx, { pageSize: 20 }));
  const listAsOf = await measure(LIST_SAMPLES, (index) => deals.list(ctx, { pageSize: 20, asOf: instant(index) }));
  console.log(`  GET            ${format(get)}`);
  console.log(`  as-of          ${format(asOf)}  ratio ${(asOf.p50 / get.p50).toFixed(2)}× GET (target ≤ 2×)`);
  console.log(`  diff 1→${VERSIONS}      ${format(diff)}  ratio ${(diff.p50 / get.p50).toFixed(2)}× GET (target ≤ 3×)`);
  console.log(`  list page 1    ${format(list)}`);
  console.log(`  list as-of p1  ${format(listAsOf)}  ratio ${(listAsOf.p50 / list.p50).toFixed(2)}× list (target ≤ 3×)`);
  await raw.close();
}

if (which === 'sqlite' || which === 'both') {
  const folder = mkdtempSync(join(tmpdir(), 'cellgate-time-travel-bench-'));
  try {
    await bench('SQLite', sqliteStorage({ filename: join(folder, 'bench.db') }));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
if (which === 'postgres' || which === 'both') {
  const cleanups: Array<() => Promise<void>> = [];
  try {
    let server = process.env.DATABASE_URL;
    if (server === undefined) {
      const bin = serverBinaries();
      if (bin === undefined) throw new Error('PostgreSQL: set DATABASE_URL or install the server binaries');
      const cluster = await startCluster(bin);
      cleanups.push(() => cluster.stop());
      server = cluster.url;
    }
    const database: TestPostgres = await createDatabase(server);
    cleanups.unshift(() => database.stop());
    await bench('PostgreSQL', postgresStorage({ connectionString: database.url }));
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}
