/**
 * The online upgrade between majors (issue #29 item 4, docs/decisions/B40.md) on PostgreSQL, in one
 * run: `api.upgrade` of N v1 records to v2 under W concurrent v1 writers, against the floor of a
 * bare `INSERT … SELECT` of the same rows into a table of the same shape (no `up`, no version
 * state, no audit, one statement). After the writers stop, a last run settles; the check then
 * counts v1 records whose v2 copy is missing or stale (lost writes, must be 0).
 *
 * Reports records/s of each and the upgrade's share of the floor. Exits 1 when a write is lost.
 *
 * Usage: npx tsx test/bench/upgrade.ts [records] [writers] [batch size]
 *   default 2,000 records, 2 writers, batches of 200; the issue's scale: 100000 8
 * PostgreSQL: `DATABASE_URL`'s server, else a throwaway cluster from the local installation.
 */
import { createRequire } from 'node:module';
import { createGovernedApi, defineEntity, type GovernedContext } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { createDatabase, serverBinaries, startCluster } from '../support/postgres.ts';

const [recordsText = '2000', writersText = '2', batchText = '200'] = process.argv.slice(2);
const RECORDS = Number(recordsText);
const WRITERS = Number(writersText);
const BATCH = Number(batchText);

const base = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Job',
  key: 'bench.job',
  description: 'A job whose estimate moved from hours to minutes',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['member'], edit: ['member'], admin: ['member'] },
} as const;
const JobV1 = defineEntity({ ...base, version: '1.0.0', fields: { title: { type: 'string' }, hours: { type: 'integer' } } });
const JobV2 = defineEntity(
  { ...base, version: '2.0.0', fields: { title: { type: 'string' }, minutes: { type: 'integer' } } },
  { from: JobV1, up: (v1) => ({ title: v1.title, minutes: v1.hours * 60 }) },
);

const workspaceId = crypto.randomUUID();
const context: GovernedContext = {
  actor: { id: 'bench', type: 'user', tenantId: crypto.randomUUID(), roles: [], workspaces: { [workspaceId]: ['member'] }, permissions: [] },
  scope: { workspaceId },
};

async function pool<T>(count: number, workers: number, task: (index: number) => Promise<T>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

async function main(): Promise<number> {
  let server = process.env.DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  const bin = server === undefined ? serverBinaries() : undefined;
  if (server === undefined && bin !== undefined) {
    const cluster = await startCluster(bin);
    server = cluster.url;
    stop = () => cluster.stop();
  }
  if (server === undefined) {
    console.log('skipped: no DATABASE_URL and no PostgreSQL server binaries');
    return 0;
  }
  const database = await createDatabase(server);
  const storage = postgresStorage({ connectionString: database.url });
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  const raw = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    const api = createGovernedApi({ storage, auth: { secret: 'upgrade-bench-secret-0123456789abcdef' }, resources: { 'jobs-v1': JobV1, jobs: JobV2 } });
    await api.migrate();
    const v1 = api.resources['jobs-v1']!.service;
    const ids: string[] = [];
    await pool(RECORDS, 8, async (i) => void ids.push((await v1.create(context, { title: `job ${i}`, hours: i % 9 })).data.id));

    // The floor: the same rows copied by one bare statement into a table of the same shape.
    await raw.query('CREATE TABLE bench_job_floor (LIKE bench_job_v1 INCLUDING ALL)');
    const floorStarted = performance.now();
    await raw.query('INSERT INTO bench_job_floor SELECT * FROM bench_job_v1');
    const floorMs = performance.now() - floorStarted;

    let writing = true;
    let writes = 0;
    const writer = async () => {
      while (writing) {
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        const current = await v1.get(context, id);
        await v1.update(context, id, { expectedVersion: current.data.version, hours: (current.data.hours as number) + 1 }).then(
          () => writes++,
          () => undefined, // two writers on one record: the loser's write did not happen
        );
      }
    };
    const writers = Array.from({ length: WRITERS }, writer);
    const started = performance.now();
    const first = await api.upgrade('bench.job', { batchSize: BATCH });
    const upgradeMs = performance.now() - started;
    writing = false;
    await Promise.all(writers);
    const last = await api.upgrade('bench.job', { batchSize: BATCH });
    const { rows } = await raw.query<{ lost: string; copies: string }>(
      `SELECT count(*) FILTER (WHERE v2.id IS NULL OR v2.minutes <> v1.hours * 60) AS lost, count(v2.id) AS copies
       FROM bench_job_v1 v1 LEFT JOIN bench_job_v2 v2 ON v2.id = v1.id`,
    );
    const lost = Number(rows[0]!.lost);
    const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000);
    console.log(`| records | writers | batch | INSERT … SELECT rec/s | upgrade rec/s (first run) | share of floor | passes | v1 writes during it | lost |`);
    console.log(`|---|---|---|---|---|---|---|---|---|`);
    console.log(
      `| ${RECORDS} | ${WRITERS} | ${BATCH} | ${perSecond(RECORDS, floorMs)} | ${perSecond(RECORDS, upgradeMs)} | ${(floorMs / upgradeMs).toFixed(4)} | ${first.passes} (+${last.passes} after the writers stopped) | ${writes} | ${lost} |`,
    );
    if (Number(rows[0]!.copies) !== RECORDS || lost !== 0 || !last.settled) {
      console.error(`lost writes: ${lost}, copies ${rows[0]!.copies} of ${RECORDS}, settled ${last.settled}`);
      return 1;
    }
    return 0;
  } finally {
    await raw.end();
    await storage.close();
    await database.stop();
    await stop?.();
  }
}

process.exitCode = await main();
