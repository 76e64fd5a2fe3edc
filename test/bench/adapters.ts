/**
 * Adapter benchmark: for node:http, Express, Fastify, Hono and Next, requests/s of `GET /api/primitives`
 * and of a governed `PATCH` (If-Match, one record per connection) through the cellgate adapter, as
 * a ratio to the same framework doing the same work from a native route, measured in the
 * same run. Next runs its production build of `next-app/` (built here when out of date). Each server runs in its own process (bundled with esbuild, so no TypeScript loader
 * sits in the hot path); autocannon drives them from this process, native and adapter alternately
 * for several rounds (medians reported), because the machine may be shared. Server CPU time per
 * request (from /proc) is reported too: it is steadier than requests/s under contention.
 *
 * The native routes do the same work by hand (see adapters-server.ts): the catalog bytes for GET;
 * for PATCH the framework's own JSON body parsing, jose, `claimsToActor` and `service.update`. So
 * each ratio is what mounting cellgate costs over writing the route yourself: the adapter plus the
 * core's HTTP layer (routing, request and response objects, body reading, headers). The `node`
 * row's native side is bare node:http.
 *
 * Run: npx tsx test/bench/adapters.ts [seconds per run, default 3] [connections, default 16] [rounds, default 3]
 * (`BENCH_FRAMEWORKS=hono,fastify` for a subset)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { autocannon, cpuSeconds, median } from './load-support.ts';

const root = resolve(import.meta.dirname, '../..');
const duration = Number(process.argv[2] ?? 3);
const connections = Number(process.argv[3] ?? 16);
const rounds = Number(process.argv[4] ?? 3);

interface Server {
  child: ChildProcess;
  url: string;
  /** Prepended to every path (the Next app's native routes live under `/native`). */
  prefix: string;
  collection: string;
  auth: Record<string, string>;
  records: Array<{ id: string; etag: string }>;
}

// Inside the repository so the bundle resolves the installed packages (node_modules is ignored by git).
const bundle = join(root, 'node_modules/.cache/cellgate-bench/adapters-server.mjs');
execFileSync(
  join(root, 'node_modules/.bin/esbuild'),
  [
    'test/bench/adapters-server.ts',
    '--bundle',
    '--platform=node',
    '--format=esm',
    '--packages=external',
    `--outfile=${bundle}`,
    '--log-level=error',
    '--tsconfig=tsconfig.json',
    // Bundled code that still `require`s (CommonJS dependencies of our sources) gets a require().
    "--banner:js=import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  ],
  { cwd: root },
);

/**
 * Builds `next-app/` (a production `next build`) unless its build is newer than everything it
 * bundles. Its routes load cellgate by name, i.e. this repository's `dist/`, so that is built
 * first when missing.
 */
function buildNextBenchApp(): void {
  const dir = join(root, 'test/bench/next-app');
  const newest = (path: string): number => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return 0;
    if (!stat.isDirectory()) return stat.mtimeMs;
    return Math.max(
      0,
      ...readdirSync(path)
        .filter((name) => name !== '.next' && name !== 'node_modules')
        .map((name) => newest(join(path, name))),
    );
  };
  const run = (args: string[], cwd: string) =>
    execFileSync(process.execPath, args, { cwd, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (newest(join(root, 'dist')) < Math.max(newest(join(root, 'src')), newest(join(root, 'adapters'))))
    run([join(root, 'node_modules/tsup/dist/cli-default.js')], root);
  if (newest(join(dir, '.next/BUILD_ID')) >= Math.max(newest(dir), newest(join(root, 'dist')))) return;
  run([join(root, 'node_modules/next/dist/bin/next'), 'build'], dir);
  // Next leaves an editor typing file pointing into .next/; the repository's typecheck does not want it.
  rmSync(join(dir, 'next-env.d.ts'), { force: true });
}

/** Every server started, stopped when this process exits however it ends. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill();
});

function start(framework: string, mode: string): Promise<Server> {
  const child = spawn(process.execPath, [bundle, framework, mode], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  return new Promise((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // The framework may print lines of its own (Next does): the server's line is the JSON one.
      const line = out.split('\n').find((text) => text.startsWith('{"url"'));
      if (line && out.includes('listening on')) done({ child, ...(JSON.parse(line) as Omit<Server, 'child'>) });
    });
    child.once('exit', (code) => fail(new Error(`${framework} ${mode} exited with ${code}: ${out}`)));
  });
}

async function load(server: Server, endpoint: 'get' | 'patch'): Promise<{ rps: number; cpuUs: number; failed: number }> {
  let next = 0;
  const request =
    endpoint === 'get'
      ? { method: 'GET', path: `${server.prefix}/api/primitives` }
      : {
          method: 'PATCH',
          setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
            context.record ??= server.records[next++ % server.records.length];
            const record = context.record as { id: string; etag: string };
            return {
              ...req,
              path: `${server.prefix}${server.collection}/${record.id}`,
              headers: { ...server.auth, 'content-type': 'application/json', 'if-match': record.etag },
              body: '{"title":"bench"}',
            };
          },
          onResponse: (_status: number, _body: string, context: Record<string, unknown>, headers: Record<string, string>) => {
            if (headers.etag) (context.record as { etag: string }).etag = headers.etag;
          },
        };
  const before = cpuSeconds(server.child.pid!);
  const result = await autocannon({ url: server.url, connections: Math.min(connections, server.records.length), duration, requests: [request] });
  const cpu = cpuSeconds(server.child.pid!) - before;
  return { rps: result.requests.average, cpuUs: (cpu / Math.max(1, result.requests.total)) * 1e6, failed: result.errors + result.non2xx };
}

/** Alternates `native` and `other` on one endpoint for every round; medians of rps and CPU per request. */
async function compare(native: Server, other: Server, endpoint: 'get' | 'patch') {
  await load(native, endpoint); // warm-up
  await load(other, endpoint);
  const runs = { n: [] as number[], o: [] as number[], nCpu: [] as number[], oCpu: [] as number[], failed: 0 };
  for (let round = 0; round < rounds; round++) {
    const x = await load(native, endpoint);
    const y = await load(other, endpoint);
    runs.n.push(x.rps);
    runs.o.push(y.rps);
    runs.nCpu.push(x.cpuUs);
    runs.oCpu.push(y.cpuUs);
    runs.failed += y.failed;
  }
  const [n, o] = [median(runs.n), median(runs.o)];
  return `native ${n.toFixed(0).padStart(6)} req/s  adapter ${o.toFixed(0).padStart(6)} req/s  ratio ${(o / n).toFixed(2)}  cpu/req native ${median(runs.nCpu).toFixed(0)} µs adapter ${median(runs.oCpu).toFixed(0)} µs${runs.failed ? `  (${runs.failed} failed)` : ''}`;
}

const rows: string[] = [];
const label = (endpoint: 'get' | 'patch') => (endpoint === 'get' ? 'GET /api/primitives' : 'PATCH governed');
// BENCH_FRAMEWORKS=hono,fastify runs a subset.
const frameworks = process.env.BENCH_FRAMEWORKS?.split(',') ?? ['node', 'express', 'fastify', 'hono', 'next'];
if (frameworks.includes('next')) buildNextBenchApp();
for (const framework of frameworks) {
  const native = await start(framework, 'native');
  const adapter = await start(framework, 'adapter');
  for (const endpoint of ['get', 'patch'] as const) {
    rows.push(`${framework.padEnd(8)} ${label(endpoint).padEnd(20)} ${await compare(native, adapter, endpoint)}`);
    console.log(rows.at(-1));
  }
  native.child.kill();
  adapter.child.kill();
}

// The node adapter alone (toNodeHandler + a handler that returns a prebuilt light response) vs
// bare node:http: the adapter layer's own cost, without the core's routing and work.
if (frameworks.includes('node')) {
  const native = await start('node', 'native');
  const bridge = await start('node', 'bridge');
  // GET only: the native PATCH does the governed work, which the bridge leaves out.
  rows.push(`node adapter only (prebuilt response) ${label('get')}: ${await compare(native, bridge, 'get')}`);
  console.log(rows.at(-1));
  native.child.kill();
  bridge.child.kill();
}
console.log(`\n${duration}s x ${rounds} rounds, ${connections} connections\n${rows.join('\n')}`);
