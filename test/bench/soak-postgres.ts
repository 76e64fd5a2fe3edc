/**
 * Soak benchmark (not a test): a long run of mixed requests against one reference-host process
 * on PostgreSQL, to see whether its memory stays flat. The host's RSS is sampled every 10 s and
 * each sample is reported against the first minute (the warm-up: JIT, pools, caches filling).
 * The mix exercises everything that could grow with traffic: creates with fresh and replayed
 * `Idempotency-Key`s, PATCHes (some conflicting), reads, lists, audit pages, `/health`,
 * `/metrics`, the shared rate-limit store (many actors, high limit) and the statement caches.
 *
 * Run: npx tsx test/bench/soak-postgres.ts [requests, default 200000] [concurrency, default 16]
 * Uses `DATABASE_URL`'s server (a fresh database on it) or a throwaway cluster.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { signDevToken } from 'cellgate';
import { startTestPostgres } from '../support/postgres.ts';
import { startHostProcess } from '../storage/fixtures/host-process.ts';

const total = Number(process.argv[2] ?? 200_000);
const concurrency = Number(process.argv[3] ?? 16);
const SAMPLE_MS = 10_000;
const WARM_UP_MS = 60_000;
const SECRET = 'soak-secret-0123456789abcdef-0123456789';
const TENANT = '50a50a50-0000-4000-8000-000000000001';
const WORKSPACE = '50a50a50-0000-4000-8000-000000000002';
const ACTORS = 200;
const customers = `/v1/workspaces/${WORKSPACE}/customers`;

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

const server = await startTestPostgres();
if (!server.ok) {
  console.log(`[soak] skipped: ${server.skip}`);
  process.exit(0);
}
const host = await startHostProcess({ DATABASE_URL: server.db.url, CELLGATE_JWT_SECRET: SECRET, CELLGATE_RATE_LIMIT: '100000000' });
const pid = host.child.pid!;
const tokens = await Promise.all(
  Array.from({ length: ACTORS }, (_, index) =>
    signDevToken({
      secret: SECRET,
      tenantId: TENANT,
      sub: `50a50a50-0000-4000-8000-${String(index).padStart(12, '0')}`,
      workspaces: { [WORKSPACE]: ['admin'] },
      roles: ['admin'],
      permissions: ['audit:read'],
      expiresIn: '6h',
    }),
  ),
);

const statuses = new Map<string, number>();
const count = (label: string) => statuses.set(label, (statuses.get(label) ?? 0) + 1);
const known: Array<{ id: string; version: number }> = [];
const keys: string[] = [];

async function send(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  count(`${method} ${response.status}`);
  return { status: response.status, text };
}

/** One request of the mix, chosen by `n`. */
async function one(n: number): Promise<void> {
  const token = tokens[n % ACTORS]!;
  const pick = n % 20;
  const record = known.length > 0 ? known[(n * 7919) % known.length]! : undefined;
  if (pick < 2 || record === undefined) {
    // A create with a fresh key, or (every other time) a replay of an earlier key.
    const replay = pick === 1 && keys.length > 0;
    const key = replay ? keys[(n * 31) % keys.length]! : `soak-${n}`;
    // A replay sends the first request's body again (same key, same body: the stored answer).
    const answer = await send('POST', customers, tokens[0]!, { name: key, email: 's@example.com', status: 'lead' }, { 'idempotency-key': key });
    if (!replay && answer.status === 201) {
      keys.push(key);
      if (keys.length > 5000) keys.shift();
      const { id, version } = (JSON.parse(answer.text) as { data: { id: string; version: number } }).data;
      if (known.length < 2000) known.push({ id, version });
    }
    return;
  }
  if (pick < 8) {
    const answer = await send('GET', `${customers}/${record.id}`, token);
    if (answer.status === 200) record.version = (JSON.parse(answer.text) as { data: { version: number } }).data.version;
    return;
  }
  if (pick < 12) {
    const answer = await send('PATCH', `${customers}/${record.id}`, token, { expectedVersion: record.version, name: `Soak ${n}` });
    if (answer.status === 200) record.version = (JSON.parse(answer.text) as { data: { version: number } }).data.version;
    return;
  }
  if (pick < 15) return void (await send('GET', `${customers}?status=lead&sortBy=name&pageSize=20&q=${n % 97}`, token));
  if (pick < 17) return void (await send('GET', `${customers}/${record.id}/versions?limit=5`, token));
  if (pick < 18) return void (await send('GET', `/v1/audit?limit=10`, token));
  if (pick < 19) return void (await send('GET', '/health', token));
  await send('GET', '/metrics', token);
}

const samples: Array<{ at: number; rss: number; done: number }> = [];
const started = Date.now();
let done = 0;
let failed = 0;
samples.push({ at: 0, rss: rssMiB(pid), done: 0 });
const sampler = setInterval(() => {
  samples.push({ at: Date.now() - started, rss: rssMiB(pid), done });
  const last = samples[samples.length - 1]!;
  console.log(`[soak] ${(last.at / 1000).toFixed(0).padStart(4)} s  ${String(done).padStart(7)} requests  RSS ${last.rss.toFixed(1)} MiB`);
}, SAMPLE_MS);

let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const n = next++;
      try {
        await one(n);
      } catch (error) {
        failed += 1;
        if (failed <= 5) console.log(`[soak] request failed: ${String((error as Error).cause ?? error)}`);
      }
      done += 1;
    }
  }),
);
clearInterval(sampler);
const seconds = (Date.now() - started) / 1000;
samples.push({ at: Date.now() - started, rss: rssMiB(pid), done });

const metricsText = await (await fetch(`${host.url}/metrics`)).text();
const db = new pg.Client({ connectionString: server.db.url });
await db.connect();
const rows = async (table: string) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
const tableRows = { rateLimit: await rows('cellgate_rate_limit'), idempotency: await rows('cellgate_idempotency'), customers: await rows('crm_customer_v1') };
await db.end();
await host.stop();
await server.db.stop();

const warm = samples.filter((sample) => sample.at <= WARM_UP_MS);
const baseline = Math.max(...warm.map((sample) => sample.rss));
const final = samples[samples.length - 1]!.rss;
const peak = Math.max(...samples.map((sample) => sample.rss));
const after = samples.filter((sample) => sample.at > WARM_UP_MS);
// Growth per 100,000 requests after the warm-up: the slope of a least-squares line through the samples.
let slope = 0;
if (after.length >= 2) {
  const mx = after.reduce((sum, s) => sum + s.done, 0) / after.length;
  const my = after.reduce((sum, s) => sum + s.rss, 0) / after.length;
  const num = after.reduce((sum, s) => sum + (s.done - mx) * (s.rss - my), 0);
  const den = after.reduce((sum, s) => sum + (s.done - mx) ** 2, 0);
  slope = den === 0 ? 0 : (num / den) * 100_000;
}
console.log(`[soak] ${done} requests in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(0)} req/s), ${failed} failed fetches`);
console.log(
  `[soak] answers: ${[...statuses]
    .sort()
    .map(([label, n]) => `${label}: ${n}`)
    .join(', ')}`,
);
console.log(
  `[soak] RSS first minute (max) ${baseline.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB, final ${final.toFixed(1)} MiB: growth ${(((final - baseline) / baseline) * 100).toFixed(1)} % over the first minute`,
);
console.log(`[soak] RSS slope after the first minute: ${slope.toFixed(2)} MiB per 100,000 requests`);
console.log(`[soak] /metrics at the end: ${metricsText.split('\n').filter((line) => line && !line.startsWith('#')).length} series`);
console.log(
  `[soak] rows: cellgate_rate_limit ${tableRows.rateLimit} (${ACTORS} actors), cellgate_idempotency ${tableRows.idempotency}, customers ${tableRows.customers}`,
);
