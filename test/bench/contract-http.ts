/**
 * Contract HTTP benchmark: requests/s and p99 latency of `GET /api/primitives` and
 * `POST /api/validate/manifest` (CRM example) on the reference host, each as a ratio to a bare
 * node:http server answering the same bytes, measured in the same run. Both servers run in their
 * own child processes; autocannon drives them from this process, one target at a time.
 *
 * Run: npx tsx test/bench/contract-http.ts [seconds per run, default 5] [connections, default 10]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

/** The part of autocannon's API used here (the package ships no type declarations). */
type Autocannon = (options: Record<string, unknown>) => Promise<{
  requests: { average: number };
  latency: { p99: number };
  errors: number;
  non2xx: number;
}>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const root = resolve(import.meta.dirname, '../..');
const duration = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 10);

function start(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) done({ child, url: match[1]! });
    });
    child.once('exit', (code) => fail(new Error(`${args[0]} exited with ${code}: ${out}`)));
  });
}

interface Figures {
  rps: number;
  p99: number;
  errors: number;
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

const host = await start(['examples/reference-host/main.ts'], { PORT: '0', DATABASE_URL: 'memory:' });
try {
  const primitives = Buffer.from(await (await fetch(`${host.url}/api/primitives`)).arrayBuffer());
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-bench-'));
  writeFileSync(join(dir, 'primitives.json'), primitives);
  const floor = await start(['test/bench/contract-http-floor.ts', join(dir, 'primitives.json')]);
  try {
    const crm = await (await fetch(`${host.url}/api/examples/crm-manifest`)).json();
    const body = JSON.stringify({ manifest: crm });
    // Same bytes on both sides, or the comparison means nothing.
    const [a, b] = await Promise.all([host.url, floor.url].map((u) => fetch(`${u}/api/validate/manifest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text())));
    if (a !== b) throw new Error(`validate answers differ:\n${a}\n${b}`);

    const cases = [
      { name: 'GET /api/primitives', request: { method: 'GET' as const, path: '/api/primitives' } },
      { name: 'POST /api/validate/manifest (CRM)', request: { method: 'POST' as const, path: '/api/validate/manifest', body } },
    ];
    const rows: string[] = [];
    for (const { name, request } of cases) {
      await measure(floor.url, request); // warm-up both (JIT), not reported
      await measure(host.url, request);
      const raw = await measure(floor.url, request);
      const ours = await measure(host.url, request);
      rows.push(
        `| ${name} | ${ours.rps.toFixed(0)} | ${ours.p99} ms | ${raw.rps.toFixed(0)} | ${raw.p99} ms | ${(ours.rps / raw.rps).toFixed(2)} | ${ours.errors + raw.errors} |`,
      );
    }
    console.log(`\nnode ${process.version}, ${connections} connections, ${duration} s per run\n`);
    console.log('| route | reference host req/s | p99 | bare node:http req/s | p99 | ratio | errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    floor.child.kill('SIGTERM');
  }
} finally {
  host.child.kill('SIGTERM');
}
