/**
 * The governed write path against its floor (issue #33): `cellgate serve --entity task.entity.json`
 * (the README's Task, tier-2: audit, version state and outbox event per write) against a bare
 * `node:http` server doing the same audited writes by hand on the same driver and the same tables
 * (`governed-write-floor.ts`). Both run in their own processes, alternately, for several rounds;
 * autocannon drives them from this process with 16 connections, each PATCH on a record no other
 * connection is writing at that moment (so no request conflicts).
 *
 * Operations: create, PATCH (merge), PATCH (JSON Patch), GET of one record, a list page (20 of
 * 1,000 rows in their own workspace, so the creates of earlier rounds do not change it).
 * Reports req/s per server, the ratio cellgate / floor per round and its median, and server CPU
 * per request.
 *
 * Usage: npx tsx test/bench/governed-write.ts [sqlite|postgres|both] [seconds] [rounds]
 * PostgreSQL: `DATABASE_URL`'s server, else a throwaway cluster from the local installation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { createGovernedApi, type StorageDriver } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { postgresStorage } from 'cellgate/storage/postgres';
import { createDatabase, serverBinaries, startCluster, type TestPostgres } from '../support/postgres.ts';
import { autocannon, cpuSeconds, median, startServer } from './load-support.ts';

const [which = 'both', seconds = '5', roundsText = '3'] = process.argv.slice(2);
const duration = Number(seconds);
const rounds = Number(roundsText);
const connections = 16;
const secret = 'bench-secret-bench-secret-bench-secret-00';
const tenant = '11111111-1111-4111-8111-111111111111';
const writeWs = '33333333-3333-4333-8333-333333333333';
const listWs = '44444444-4444-4444-8444-444444444444';
const actorId = '77777777-7777-4777-8777-777777777777';
const task = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'work.task',
  version: '1.0.0',
  description: 'A to-do item.',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer', 'editor'], edit: ['editor'], admin: ['admin'] },
  fields: { title: { type: 'string' }, done: { type: 'boolean', optional: true } },
};

const folder = mkdtempSync(join(tmpdir(), 'cellgate-write-bench-'));
const entityFile = join(folder, 'task.entity.json');
writeFileSync(entityFile, JSON.stringify(task));
const token = await new SignJWT({ tenant_id: tenant, workspaces: { [writeWs]: ['editor'], [listWs]: ['editor'] } })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject(actorId)
  .setExpirationTime('2h')
  .sign(new TextEncoder().encode(secret));
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

/** Creates the tables (cellgate's migrate) and the rows both servers start from. */
async function prepare(storage: StorageDriver): Promise<void> {
  const api = createGovernedApi({ storage, auth: { secret }, resources: [task as never] });
  await api.migrate();
  const service = api.resources.tasks!.service;
  const context = {
    actor: { id: actorId, type: 'user' as const, tenantId: tenant, roles: [], workspaces: { [listWs]: ['editor'] }, permissions: [] },
    scope: { workspaceId: listWs },
  };
  for (let i = 0; i < 1000; i++) await service.create(context, { title: `task ${i}` });
  await storage.close();
}

interface Target {
  name: string;
  url: string;
  pid: number;
  /** Records PATCHed by the connections, each `{ id, version }`, taken and given back per request. */
  free: { id: string; version: number }[];
  itemId: string;
}

/** Fresh records for the PATCH connections (a run's last requests never give theirs back). */
async function seedRecords(target: Target): Promise<void> {
  target.free.length = 0;
  for (let i = 0; i < connections; i++) {
    const response = await fetch(`${target.url}/v1/workspaces/${writeWs}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: `bench ${i}` }) });
    const { data } = (await response.json()) as { data: { id: string; version: number } };
    target.free.push({ id: data.id, version: data.version });
  }
  target.itemId = target.free[0]!.id;
}

type Operation = 'create' | 'patch (merge)' | 'patch (JSON Patch)' | 'get' | 'list';
const OPERATIONS: Operation[] = ['get', 'list', 'patch (merge)', 'patch (JSON Patch)', 'create'];

function requestsOf(target: Target, operation: Operation): Record<string, unknown>[] {
  const collection = `/v1/workspaces/${writeWs}/tasks`;
  if (operation === 'create') return [{ method: 'POST', path: collection, headers, body: JSON.stringify({ title: 'new task', done: false }) }];
  if (operation === 'get') return [{ method: 'GET', path: `${collection}/${target.itemId}`, headers }];
  if (operation === 'list') return [{ method: 'GET', path: `/v1/workspaces/${listWs}/tasks?sortBy=createdAt&sortDir=desc`, headers }];
  const jsonPatch = operation === 'patch (JSON Patch)';
  let counter = 0;
  return [
    {
      method: 'PATCH',
      headers,
      setupRequest(request: Record<string, unknown>, context: Record<string, unknown>) {
        const record = target.free.pop();
        if (record === undefined) throw new Error('more requests in flight than records');
        context.record = record;
        counter += 1;
        const title = `title ${counter}`;
        request.path = `${collection}/${record.id}`;
        request.body = JSON.stringify(
          jsonPatch
            ? { expectedVersion: record.version, patch: [{ op: 'replace', path: '/title', value: title }] }
            : { expectedVersion: record.version, title },
        );
        return request;
      },
      onResponse(status: number, body: string, context: Record<string, unknown>) {
        const record = context.record as { id: string; version: number };
        if (status === 200) record.version = (JSON.parse(body) as { data: { version: number } }).data.version;
        target.free.push(record);
      },
    },
  ];
}

async function measure(target: Target, operation: Operation) {
  if (operation.startsWith('patch')) await seedRecords(target);
  const before = cpuSeconds(target.pid);
  const result = await autocannon({ url: target.url, connections, duration, requests: requestsOf(target, operation) });
  const cpu = cpuSeconds(target.pid) - before;
  const bad = result.errors + result.non2xx;
  return { rps: result.requests.average, cpuPerRequestUs: (cpu / Math.max(1, result.requests.total)) * 1e6, bad };
}

async function run(driver: 'sqlite' | 'postgres'): Promise<string[]> {
  let urls: { cellgate: string; floor: string };
  const cleanups: (() => Promise<void>)[] = [];
  if (driver === 'sqlite') {
    urls = { cellgate: `sqlite:${join(folder, 'cellgate.db')}`, floor: `sqlite:${join(folder, 'floor.db')}` };
    await prepare(sqliteStorage({ filename: join(folder, 'cellgate.db') }));
    await prepare(sqliteStorage({ filename: join(folder, 'floor.db') }));
  } else {
    let server = process.env.DATABASE_URL;
    if (server === undefined) {
      const bin = serverBinaries();
      if (bin === undefined) return [`| postgres | skipped: no DATABASE_URL and no PostgreSQL server binaries |`];
      const cluster = await startCluster(bin);
      cleanups.push(() => cluster.stop());
      server = cluster.url;
    }
    const [a, b]: TestPostgres[] = [await createDatabase(server), await createDatabase(server)];
    cleanups.unshift(
      () => a!.stop(),
      () => b!.stop(),
    );
    urls = { cellgate: a!.url, floor: b!.url };
    await prepare(postgresStorage({ connectionString: a!.url }));
    await prepare(postgresStorage({ connectionString: b!.url }));
  }
  const env = { CELLGATE_JWT_SECRET: secret, PORT: '0', HOST: '127.0.0.1' };
  const cellgate = await startServer(['src/cli/index.ts', 'serve', '--entity', entityFile, '--database-url', urls.cellgate], env);
  const floor = await startServer(['test/bench/governed-write-floor.ts', urls.floor, secret]);
  const rows: string[] = [];
  try {
    const targets: Target[] = [
      { name: 'cellgate', url: cellgate.url, pid: cellgate.child.pid!, free: [], itemId: '' },
      { name: 'floor', url: floor.url, pid: floor.child.pid!, free: [], itemId: '' },
    ];
    for (const target of targets) await seedRecords(target);
    for (const operation of OPERATIONS) {
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      const figures: Record<string, { rps: number[]; cpu: number[]; bad: number }> = {
        cellgate: { rps: [], cpu: [], bad: 0 },
        floor: { rps: [], cpu: [], bad: 0 },
      };
      for (let round = 0; round < rounds; round++) {
        // Alternate which server goes first, so neither always meets a warmer machine.
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
        for (const target of order) results[target.name] = await measure(target, operation);
        for (const name of ['cellgate', 'floor']) {
          figures[name]!.rps.push(results[name]!.rps);
          figures[name]!.cpu.push(results[name]!.cpuPerRequestUs);
          figures[name]!.bad += results[name]!.bad;
        }
        ratios.push(results.cellgate!.rps / results.floor!.rps);
        cpuRatios.push(results.floor!.cpuPerRequestUs / results.cellgate!.cpuPerRequestUs);
      }
      const c = figures.cellgate!;
      const f = figures.floor!;
      rows.push(
        `| ${driver} | ${operation} | ${median(c.rps).toFixed(0)} | ${median(f.rps).toFixed(0)} | **${median(ratios).toFixed(2)}** (${ratios.map((r) => r.toFixed(2)).join(', ')}) | ${median(c.cpu).toFixed(0)} / ${median(f.cpu).toFixed(0)} µs (${median(cpuRatios).toFixed(2)}) | ${c.bad} / ${f.bad} |`,
      );
      console.error(rows.at(-1));
    }
  } finally {
    cellgate.child.kill('SIGTERM');
    floor.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
  return rows;
}

try {
  const rows: string[] = [];
  for (const driver of ['sqlite', 'postgres'] as const) if (which === 'both' || which === driver) rows.push(...(await run(driver)));
  console.log(`\nnode ${process.version}, ${connections} connections, ${duration} s per run, ${rounds} alternating rounds (medians)\n`);
  console.log(
    '| driver | operation | cellgate req/s | floor req/s | ratio (per round) | server CPU per request, cellgate / floor (floor ÷ cellgate) | errors or non-2xx (cellgate / floor) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
