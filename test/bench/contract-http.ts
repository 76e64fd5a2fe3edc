/**
 * Contract HTTP benchmark: requests/s and p99 latency of `GET /api/primitives` and
 * `POST /api/validate/manifest` (CRM example) on the reference host, each as a ratio to a bare
 * node:http server answering the same bytes, measured in the same run. Both servers run in their
 * own child processes; autocannon drives them from this process, one target at a time.
 *
 * The machine may be shared (other processes competing for the cores), so floor and host are
 * measured alternately for several rounds and the medians are reported, ratio per round. A second
 * figure is steadier under contention: server CPU time per request (from /proc) at a fixed,
 * unsaturated request rate; the floor's CPU per request over the host's is the efficiency ratio.
 *
 * Run: npx tsx test/bench/contract-http.ts [seconds per run, default 4] [connections, default 10] [rounds, default 3]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { autocannon, cpuSeconds, median, startServer as start } from './load-support.ts';

const duration = Number(process.argv[2] ?? 4);
const connections = Number(process.argv[3] ?? 10);
const rounds = Number(process.argv[4] ?? 3);

interface Figures {
  rps: number;
  p99: number;
  errors: number;
}

/** Server CPU microseconds per request at a fixed rate that leaves the server unsaturated. */
async function cpuPerRequest(pid: number, url: string, request: { method: 'GET' | 'POST'; path: string; body?: string }, rate: number): Promise<number> {
  const before = cpuSeconds(pid);
  const result = await autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    connections,
    duration,
    overallRate: rate,
    ...(request.body ? { body: request.body, headers: { 'content-type': 'application/json' } } : {}),
  });
  return ((cpuSeconds(pid) - before) * 1e6) / (result.requests.total as number);
}

async function measure(url: string, request: { method: 'GET' | 'POST'; path: string; body?: string }): Promise<Figures> {
  const result = await autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    connections,
    duration,
    ...(request.body ? { body: request.body, headers: { 'content-type': 'application/json' } } : {}),
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

// On SQLite, as `npm start` runs it (issue #33 measured that way): the storage's timers and heap are part of the host.
const host = await start(['examples/reference-host/main.ts'], {
  PORT: '0',
  DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'cellgate-bench-host-')), 'dev.db')}`,
});
try {
  const primitives = Buffer.from(await (await fetch(`${host.url}/api/primitives`)).arrayBuffer());
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-bench-'));
  writeFileSync(join(dir, 'primitives.json'), primitives);
  const floor = await start(['test/bench/contract-http-floor.ts', join(dir, 'primitives.json'), 'raw']);
  const fetchFloor = await start(['test/bench/contract-http-floor.ts', join(dir, 'primitives.json'), 'fetch']);
  try {
    const crm = await (await fetch(`${host.url}/api/examples/crm-manifest`)).json();
    const body = JSON.stringify({ manifest: crm });
    // Same bytes on both sides, or the comparison means nothing.
    const answers = await Promise.all(
      [host.url, floor.url, fetchFloor.url].map((u) =>
        fetch(`${u}/api/validate/manifest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text()),
      ),
    );
    if (new Set(answers).size !== 1) throw new Error(`validate answers differ:\n${answers.join('\n')}`);

    const cases = [
      { name: 'GET /api/primitives', request: { method: 'GET' as const, path: '/api/primitives' }, rate: 2000 },
      { name: 'POST /api/validate/manifest (CRM)', request: { method: 'POST' as const, path: '/api/validate/manifest', body }, rate: 300 },
    ];
    const rows: string[] = [];
    const cpuRows: string[] = [];
    for (const { name, request, rate } of cases) {
      await measure(floor.url, request); // warm-up both (JIT), not reported
      await measure(host.url, request);
      const raw: Figures[] = [];
      const ours: Figures[] = [];
      for (let round = 0; round < rounds; round++) {
        raw.push(await measure(floor.url, request));
        ours.push(await measure(host.url, request));
      }
      const ratios = ours.map((o, i) => o.rps / raw[i]!.rps);
      const errors = [...raw, ...ours].reduce((sum, f) => sum + f.errors, 0);
      await measure(fetchFloor.url, request); // warm-up
      const rawCpu = await cpuPerRequest(floor.child.pid!, floor.url, request, rate);
      const fetchCpu = await cpuPerRequest(fetchFloor.child.pid!, fetchFloor.url, request, rate);
      const ourCpu = await cpuPerRequest(host.child.pid!, host.url, request, rate);
      cpuRows.push(
        `| ${name} | ${rate} | ${ourCpu.toFixed(0)} µs | ${rawCpu.toFixed(0)} µs | ${(rawCpu / ourCpu).toFixed(2)} | ${fetchCpu.toFixed(0)} µs | ${(fetchCpu / ourCpu).toFixed(2)} |`,
      );
      rows.push(
        `| ${name} | ${median(ours.map((f) => f.rps)).toFixed(0)} | ${median(ours.map((f) => f.p99))} ms | ${median(raw.map((f) => f.rps)).toFixed(0)} | ${median(raw.map((f) => f.p99))} ms | ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')}) | ${errors} |`,
      );
    }
    console.log(`\nnode ${process.version}, ${connections} connections, ${duration} s per run, ${rounds} alternating rounds (medians)\n`);
    console.log('| route | reference host req/s | p99 | bare node:http req/s | p99 | ratio (per round) | errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log('\nServer CPU per request at a fixed rate (floor CPU / host CPU = efficiency ratio). The Fetch floor is a');
    console.log('trivial Fetch handler behind toNodeHandler: what any Request/Response handler pays on node:http.\n');
    console.log('| route | rate (req/s) | reference host | bare node:http | ratio | Fetch floor | ratio |');
    console.log('|---|---|---|---|---|---|---|');
    for (const row of cpuRows) console.log(row);
  } finally {
    floor.child.kill('SIGTERM');
    fetchFloor.child.kill('SIGTERM');
  }
} finally {
  host.child.kill('SIGTERM');
}
