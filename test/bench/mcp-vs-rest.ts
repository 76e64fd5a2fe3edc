/**
 * Benchmark: `tools/call validate_manifest` over MCP, in both protocol revisions (2025-11-25 plain
 * JSON-RPC; 2026-07-28 with its `_meta` envelope and headers), against its REST twin
 * `POST /api/validate/manifest`, same CRM manifest, same server, same run. The load generator
 * (autocannon) runs in a second process so it does not share the server's event loop.
 *
 * A plain `tools/call` of one of our tools takes the endpoint's direct path (no SDK server per
 * request, see docs/mcp.md); everything else still gets a per-request SDK server, so the script
 * also measures that construction (McpServer + 19 tools + 5 resources + transport), against what
 * the SDK's defaults would cost (an Ajv instance per server, `tools/list` converting every zod
 * schema on each call).
 *
 * Run: `npx tsx test/bench/mcp-vs-rest.ts` (DURATION=seconds per run, default 3; ROUNDS=pairs of
 * runs, default 6). Short alternating runs and the median of the per-pair ratios keep a shared
 * machine's load swings out of the ratio.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { createContractHandler } from 'cellgate';
import { toNodeHandler } from '../../adapters/node/index.ts';
import { createMcpServer, mcpTools } from '../../src/contract/mcp/index.ts';
import { scopeOf } from '../../src/contract/mcp/server.ts';
import { getExample } from '../../src/contract/services.ts';

const run = promisify(execFile);
const duration = Number(process.env['DURATION'] ?? 3);
const roundCount = Number(process.env['ROUNDS'] ?? 6);
const autocannon = join(import.meta.dirname, '../../node_modules/.bin/autocannon');

/** CPU time (not wall time: the machine may be shared) per call, after a warm-up. */
async function perCall(label: string, n: number, body: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(200, n); i++) await body();
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await body();
  const used = process.cpuUsage(start);
  const micros = (used.user + used.system) / n;
  console.log(`${label.padEnd(62)} ${micros.toFixed(1).padStart(8)} µs CPU`);
  return micros;
}

/** The headers a 2026-07-28 client sends with `tools/call validate_manifest`. */
const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'validate_manifest' };

/** `tools/call validate_manifest` as a 2026-07-28 request: the `_meta` envelope, no handshake. */
function modernCall(manifest: unknown) {
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest }, _meta } };
}

async function constructionCosts(): Promise<void> {
  const handler = createContractHandler();
  const context = handler.context;
  console.log('\nPer-request construction (in process):');
  await perCall('createMcpServer, full (precomputed list, shared Ajv)', 2000, () => createMcpServer(context));
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_manifest', arguments: {} } };
  await perCall('createMcpServer scoped to one tools/call', 2000, () => createMcpServer(context, scopeOf(call)));
  await perCall('scoped createMcpServer + transport + connect (the endpoint)', 2000, async () => {
    const server = createMcpServer(context, scopeOf(call));
    await server.connect(new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true }));
  });
  await perCall('  … plus close() (left out by the endpoint)', 2000, async () => {
    const server = createMcpServer(context, scopeOf(call));
    await server.connect(new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true }));
    await server.close();
  });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1' };
  const manifest = await getExample('crm-manifest');
  const restBody = JSON.stringify({ manifest });
  const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest } } });
  const rest = await perCall('in process: REST POST /api/validate/manifest (CRM)', 2000, () =>
    handler(new Request('http://127.0.0.1/api/validate/manifest', { method: 'POST', headers, body: restBody })).then((r) => r.text()),
  );
  const mcp = await perCall('in process: MCP 2025-11-25 tools/call validate_manifest (CRM)', 2000, () =>
    handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: mcpBody })).then((r) => r.text()),
  );
  console.log(`in-process CPU ratio REST / MCP 2025-11-25 (= relative throughput): ${(rest / mcp).toFixed(2)}`);
  const modernBody = JSON.stringify(modernCall(manifest));
  const modern = await perCall('in process: MCP 2026-07-28 tools/call validate_manifest (CRM)', 2000, () =>
    handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...headers, ...MODERN_HEADERS }, body: modernBody })).then((r) => r.text()),
  );
  console.log(`in-process CPU ratio REST / MCP 2026-07-28 (= relative throughput): ${(rest / modern).toFixed(2)}`);
  await perCall('SDK defaults: McpServer + 19 registerTool (own Ajv each)', 500, () => {
    const server = new McpServer({ name: 'naive', version: '0' }, { capabilities: { tools: {}, resources: {} } });
    for (const tool of mcpTools) server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, () => ({ content: [] }));
    return server;
  });
  await perCall('SDK defaults: tools/list converting 38 zod schemas per call', 100, () =>
    mcpTools.map((tool) => [
      z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }),
      z.toJSONSchema(tool.output, { target: 'draft-7', io: 'output', unrepresentable: 'any' }),
    ]),
  );
}

interface Result {
  requests: { average: number; total: number };
  /** Server CPU time per answered request (µs), measured in this process around the run. */
  cpuPerRequest: number;
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

/** One autocannon run; `rate` fixes the overall requests per second (unsaturated), else as fast as it goes. */
async function load(url: string, bodyFile: string, extraHeaders: string[], rate?: number): Promise<Result> {
  const paced = rate === undefined ? [] : ['-R', String(rate)];
  const args = ['-c', '16', '-d', String(duration), ...paced, '-m', 'POST', '-H', 'content-type=application/json', ...extraHeaders, '-i', bodyFile, '-j', url];
  const cpu = process.cpuUsage();
  const { stdout } = await run(autocannon, args, { maxBuffer: 16 * 1024 * 1024 });
  const used = process.cpuUsage(cpu);
  const result = JSON.parse(stdout) as Result;
  result.cpuPerRequest = (used.user + used.system) / Math.max(1, result.requests.total);
  return result;
}

async function main(): Promise<void> {
  await constructionCosts();

  const server = createServer(toNodeHandler(createContractHandler()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const manifest = await getExample('crm-manifest');
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-bench-mcp-'));
  const restBody = join(dir, 'rest.json');
  const mcpBody = join(dir, 'mcp.json');
  writeFileSync(restBody, JSON.stringify({ manifest }));
  writeFileSync(mcpBody, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest } } }));
  const mcpHeaders = ['-H', 'accept=application/json, text/event-stream'];
  const modernBody = join(dir, 'modern.json');
  writeFileSync(modernBody, JSON.stringify(modernCall(manifest)));
  const modernHeaders = [...mcpHeaders, ...Object.entries(MODERN_HEADERS).flatMap(([name, value]) => ['-H', `${name}=${value}`])];
  const targets = [
    { name: 'REST POST /api/validate/manifest', url: `${base}/api/validate/manifest`, body: restBody, headers: [] as string[] },
    { name: 'MCP 2025-11-25 tools/call', url: `${base}/mcp`, body: mcpBody, headers: mcpHeaders },
    { name: 'MCP 2026-07-28 tools/call', url: `${base}/mcp`, body: modernBody, headers: modernHeaders },
  ];

  console.log(`\nHTTP, 16 connections, ${duration}s per round, CRM manifest (${JSON.stringify(manifest).length} bytes):`);
  await load(targets[0]!.url, restBody, []); // warm-up
  const ratios: number[][] = [[], []];
  const cpuRatios: number[][] = [[], []];
  for (let round = 0; round < roundCount; round++) {
    // Rotate which goes first so a load swing does not always favour the same side.
    const order = [0, 1, 2].map((i) => (i + round) % 3);
    const results: Result[] = [];
    for (const index of order) results[index] = await load(targets[index]!.url, targets[index]!.body, targets[index]!.headers);
    const [rest, ...mcps] = results as [Result, Result, Result];
    mcps.forEach((mcp, i) => {
      ratios[i]!.push(mcp.requests.average / rest.requests.average);
      cpuRatios[i]!.push(rest.cpuPerRequest / mcp.cpuPerRequest);
    });
    targets.forEach((target, i) => {
      const r = results[i]!;
      console.log(
        `  round ${round + 1} ${target.name.padEnd(34)} ${r.requests.average.toFixed(0).padStart(7)} req/s  ${r.cpuPerRequest.toFixed(0).padStart(5)} µs server CPU/req  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx} errors ${r.errors}`,
      );
    });
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2;
  };
  const show = (values: number[]) => values.map((r) => r.toFixed(2)).join(', ');
  ['2025-11-25', '2026-07-28'].forEach((revision, i) => {
    console.log(`\nMCP ${revision} / REST requests per second: median ${median(ratios[i]!).toFixed(2)} (per round: ${show(ratios[i]!)})`);
    console.log(
      `REST / MCP ${revision} server CPU per request (load-independent): median ${median(cpuRatios[i]!).toFixed(2)} (per round: ${show(cpuRatios[i]!)})`,
    );
  });
  // Server CPU per request at a fixed 500 req/s: nobody waits for the CPU, so a shared machine's
  // load moves this figure least.
  const paced: number[][] = [[], [], []];
  for (let round = 0; round < 3; round++) {
    for (const [i, target] of targets.entries()) paced[i]!.push((await load(target.url, target.body, target.headers, 500)).cpuPerRequest);
  }
  const [restCpu, ...mcpCpu] = paced.map(median) as [number, number, number];
  console.log(`\nServer CPU per request at 500 req/s, median of 3: REST ${restCpu.toFixed(0)} µs`);
  ['2025-11-25', '2026-07-28'].forEach((revision, i) => {
    console.log(`  MCP ${revision} ${mcpCpu[i]!.toFixed(0)} µs: REST / MCP ${(restCpu / mcpCpu[i]!).toFixed(2)}`);
  });
  server.closeAllConnections();
  server.close();
}

await main();
