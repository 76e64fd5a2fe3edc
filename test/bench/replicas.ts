/**
 * Read replicas (issue #32, docs/scaling-out.md#read-replicas, B37): GET and list throughput of
 * the governed API with the primary alone, with 1 replica and with 2, on one machine and in one
 * run (a primary and two streaming replicas made with `pg_basebackup -R`, all on loopback), and
 * the p50 a `Cellgate-Consistency` token adds to a GET right after its write.
 *
 * Requests go through the API's fetch handler in process (the same routing as over HTTP: the
 * handler opens the read and write contexts), 8 at a time. On one 2-core machine the replicas
 * share the cores with the primary, so the ratios show what routing costs, not the capacity
 * separate machines would add.
 *
 * Usage: npx tsx test/bench/replicas.ts   (REPLICA_BENCH_REQUESTS, default 2,000 GETs and 500 lists per setting)
 */
import { createGovernedApi, defineEntity, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { SignJWT } from 'jose';
import { serverBinaries, startCluster, startReplica } from '../support/postgres.ts';

const REQUESTS = Number(process.env.REPLICA_BENCH_REQUESTS ?? 2_000);
const CONCURRENCY = 8;
const SECRET = 'bench-secret-bench-secret-bench-secret-00';
const workspaceId = '33333333-3333-4333-8333-333333333333';
const HEADER = 'Cellgate-Consistency';

const Note = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Note',
  key: 'bench.note',
  version: '1.0.0',
  description: 'A note of the replica bench',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { title: { type: 'string' } },
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const bin = serverBinaries();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const primary = await startCluster(bin, '-c synchronous_commit=on');
  const replicas = [await startReplica(bin, primary.url), await startReplica(bin, primary.url)];
  const token = await new SignJWT({ tenant_id: crypto.randomUUID(), roles: ['admin'], workspaces: { [workspaceId]: ['admin'] }, permissions: [] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));
  const base = `http://bench.local/v1/workspaces/${workspaceId}/notes`;
  const call = (api: (request: Request) => Promise<Response>, method: string, url: string, headers: Record<string, string> = {}, body?: unknown) =>
    api(
      new Request(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const settings: Array<[string, StorageDriver]> = [
    ['primary alone', postgresStorage({ connectionString: primary.url })],
    ['1 replica', postgresStorage({ connectionString: primary.url, replicas: [replicas[0]!.url] })],
    ['2 replicas', postgresStorage({ connectionString: primary.url, replicas: replicas.map((replica) => replica.url) })],
  ];
  const apis = settings.map(([, storage]) => createGovernedApi({ storage, auth: { secret: SECRET }, resources: { notes: Note } }));
  await apis[0]!.migrate();
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) ids.push(((await (await call(apis[0]!, 'POST', base, {}, { title: `note ${i}` })).json()) as { data: { id: string } }).data.id);

  /** Requests per second of `count` calls of `one`, CONCURRENCY at a time. */
  async function throughput(count: number, one: (index: number) => Promise<Response>): Promise<number> {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          const response = await one(next++);
          if (response.status !== 200) throw new Error(`status ${response.status}`);
          await response.arrayBuffer();
        }
      }),
    );
    return count / ((performance.now() - started) / 1000);
  }

  // Three rounds over the settings, each measured once per round; the median of the rounds, so
  // neither the order nor a warmer cache favours one setting.
  const rates = settings.map(() => ({ get: [] as number[], list: [] as number[] }));
  for (const api of apis) await throughput(400, (i) => call(api, 'GET', `${base}/${ids[i % ids.length]}`)); // warm-up
  for (let round = 0; round < 3; round++) {
    for (const [index, api] of apis.entries()) {
      rates[index]!.get.push(await throughput(REQUESTS, (i) => call(api, 'GET', `${base}/${ids[i % ids.length]}`)));
      rates[index]!.list.push(await throughput(Math.ceil(REQUESTS / 4), () => call(api, 'GET', `${base}?pageSize=20`)));
    }
  }
  const alone = { get: median(rates[0]!.get), list: median(rates[0]!.list) };
  const rows = settings.map(([name], index) => {
    const get = median(rates[index]!.get);
    const list = median(rates[index]!.list);
    return `| ${name} | ${get.toFixed(0)}/s (${(get / alone.get).toFixed(2)}×) | ${list.toFixed(0)}/s (${(list / alone.list).toFixed(2)}×) |`;
  });

  // The token's cost: a GET right after its write, with the write's token vs without (1 replica).
  const api = apis[1]!;
  const withToken: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < 300; i++) {
    const created = await call(api, 'POST', base, {}, { title: `t${i}` });
    const { data } = (await created.json()) as { data: { id: string } };
    const consistency = created.headers.get(HEADER)!;
    let started = performance.now();
    await (await call(api, 'GET', `${base}/${data.id}`, { [HEADER]: consistency })).arrayBuffer();
    withToken.push(performance.now() - started);
    started = performance.now();
    await (await call(api, 'GET', `${base}/${data.id}`)).arrayBuffer();
    without.push(performance.now() - started);
  }
  console.log('| setting | GET by id | list page (20) |\n|---|---|---|');
  for (const row of rows) console.log(row);
  console.log(
    `\nGET right after its write, 1 replica: p50 ${median(withToken).toFixed(2)} ms with the token, ${median(without).toFixed(2)} ms without (+${(median(withToken) - median(without)).toFixed(2)} ms)`,
  );
  for (const [, storage] of settings) await storage.close();
  for (const replica of replicas) await replica.stop();
  await primary.stop();
}

await main();
