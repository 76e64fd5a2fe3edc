/**
 * Speed of manifest validation against the raw floor, both measured in the same run on the same
 * 4.4 KB CRM body (the `crm-manifest` example):
 *
 * 1. In process: `validateManifest(crm)` over `JSON.parse(text)` of the same body (target ≤ 2).
 * 2. Over HTTP: `POST /api/validate/manifest` on the reference host over a bare node:http server
 *    that only reads the body, `JSON.parse`s it and answers the same bytes (target ≥ 0.5). Both
 *    run in their own processes, measured alternately; medians of the rounds are reported, plus
 *    server CPU per request at a fixed unsaturated rate (steadier on a shared machine).
 * 3. MCP `tools/call validate_manifest` on the same reference host, in both protocol revisions
 *    (2025-11-25 plain JSON-RPC; 2026-07-28 with its `_meta` envelope and headers), over the REST
 *    route of the same round (target ≥ 0.8).
 *
 * Run: npx tsx test/bench/validate-speed.ts [seconds per HTTP run, default 4] [rounds, default 3]
 * (`floor` as the first argument starts only the floor server; the script does that itself.)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getExample, validateManifest } from 'cellgate';
import { autocannon, cpuSeconds, median, startServer } from './load-support.ts';

const body = JSON.stringify({ manifest: getExample('crm-manifest') });

/** Mean microseconds per call of `run` over about `ms` milliseconds. */
function perCall(run: () => unknown, ms: number): number {
  let calls = 0;
  const started = performance.now();
  let now = started;
  while (now - started < ms) {
    for (let i = 0; i < 200; i++) run();
    calls += 200;
    now = performance.now();
  }
  return ((now - started) * 1000) / calls;
}

function inProcess(rounds: number): string {
  const manifest = JSON.parse(body).manifest as unknown;
  const text = JSON.stringify(manifest);
  if (!validateManifest(manifest).valid) throw new Error('the CRM example must be valid');
  perCall(() => JSON.parse(text), 500); // warm-up (JIT)
  perCall(() => validateManifest(manifest), 500);
  const parse: number[] = [];
  const validate: number[] = [];
  for (let round = 0; round < rounds * 3; round++) {
    parse.push(perCall(() => JSON.parse(text), 300));
    validate.push(perCall(() => validateManifest(manifest), 300));
  }
  const ratios = validate.map((v, i) => v / parse[i]!);
  return [
    '| in process | µs per call | ratio to JSON.parse (per round) |',
    '|---|---|---|',
    `| JSON.parse(text), ${text.length} bytes | ${median(parse).toFixed(1)} | 1 |`,
    `| validateManifest(crm) | ${median(validate).toFixed(1)} | ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')}) |`,
  ].join('\n');
}

/** One kind of request the HTTP rounds send: a path, its body and headers beyond `content-type`. */
interface Target {
  path: string;
  body: string;
  headers?: Record<string, string>;
}

const REST: Target = { path: '/api/validate/manifest', body };
const mcpHeaders = { accept: 'application/json, text/event-stream' };
const call = (meta?: Record<string, unknown>) => ({ name: 'validate_manifest', arguments: JSON.parse(body) as unknown, ...(meta ? { _meta: meta } : {}) });
const MCP_2025: Target = { path: '/mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call() }), headers: mcpHeaders };
const MCP_2026: Target = {
  path: '/mcp',
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: call({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }),
  }),
  headers: { ...mcpHeaders, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'validate_manifest' },
};

async function load(url: string, duration: number, overallRate?: number, target: Target = REST) {
  const result = await autocannon({
    url: `${url}${target.path}`,
    method: 'POST',
    body: target.body,
    headers: { 'content-type': 'application/json', ...target.headers },
    connections: 10,
    duration,
    ...(overallRate ? { overallRate } : {}),
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

/** The structured result of a `tools/call` answer (JSON, or the one event of an SSE answer). */
async function toolResult(url: string, target: Target): Promise<unknown> {
  const response = await fetch(`${url}${target.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: target.body,
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return (JSON.parse(json) as { result?: { structuredContent?: unknown } }).result?.structuredContent;
}

async function overHttp(duration: number, rounds: number): Promise<string> {
  const host = await startServer(['examples/reference-host/main.ts'], { PORT: '0', DATABASE_URL: 'memory:' });
  const floor = await startServer(['test/bench/validate-speed.ts', 'floor']);
  try {
    const answers = await Promise.all(
      [host.url, floor.url].map((url) =>
        fetch(`${url}/api/validate/manifest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text()),
      ),
    );
    if (answers[0] !== answers[1]) throw new Error(`answers differ:\n${answers.join('\n')}`);
    for (const target of [MCP_2025, MCP_2026]) {
      const structured = JSON.stringify(await toolResult(host.url, target));
      if (structured !== answers[0]) throw new Error(`MCP answer differs from REST: ${structured}`);
    }
    await load(floor.url, 1); // warm-up (JIT), not reported
    for (const target of [REST, MCP_2025, MCP_2026]) await load(host.url, 1, undefined, target);
    const floorRps: number[] = [];
    const hostRps: number[] = [];
    const mcpRatios: number[][] = [[], []];
    for (let round = 0; round < rounds; round++) {
      floorRps.push((await load(floor.url, duration)).requests.average);
      const rest = (await load(host.url, duration)).requests.average;
      hostRps.push(rest);
      for (const [i, target] of [MCP_2025, MCP_2026].entries()) mcpRatios[i]!.push((await load(host.url, duration, undefined, target)).requests.average / rest);
    }
    const ratios = hostRps.map((r, i) => r / floorRps[i]!);
    const perRound = (values: number[]) => `${median(values).toFixed(2)} (${values.map((r) => r.toFixed(2)).join(', ')})`;
    const cpu = async (server: typeof host) => {
      const before = cpuSeconds(server.child.pid!);
      const result = await load(server.url, duration, 500);
      return ((cpuSeconds(server.child.pid!) - before) * 1e6) / result.requests.total;
    };
    const floorCpu = await cpu(floor);
    const hostCpu = await cpu(host);
    return [
      '| POST /api/validate/manifest (CRM) | req/s | ratio to the floor (per round) | CPU per request at 500 req/s | CPU ratio |',
      '|---|---|---|---|---|',
      `| bare node:http, JSON.parse only | ${median(floorRps).toFixed(0)} | 1 | ${floorCpu.toFixed(0)} µs | 1 |`,
      `| reference host | ${median(hostRps).toFixed(0)} | ${perRound(ratios)} | ${hostCpu.toFixed(0)} µs | ${(floorCpu / hostCpu).toFixed(2)} |`,
      '',
      '| MCP tools/call validate_manifest (CRM), same host | ratio to REST req/s, same round (per round) |',
      '|---|---|',
      `| 2025-11-25 (plain JSON-RPC) | ${perRound(mcpRatios[0]!)} |`,
      `| 2026-07-28 (\`_meta\` envelope, headers) | ${perRound(mcpRatios[1]!)} |`,
    ].join('\n');
  } finally {
    floor.child.kill('SIGTERM');
    host.child.kill('SIGTERM');
  }
}

async function main(duration: number, rounds: number): Promise<void> {
  console.log(`node ${process.version}, ${rounds} alternating rounds (medians)\n`);
  console.log(inProcess(rounds));
  console.log('');
  console.log(await overHttp(duration, rounds));
}

// Last, so every constant above is initialised before the top-level await runs.
if (process.argv[2] === 'floor') {
  const answer = Buffer.from(JSON.stringify({ valid: true, errors: [] }));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': answer.length });
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  await main(Number(process.argv[2] ?? 4), Number(process.argv[3] ?? 3));
}
