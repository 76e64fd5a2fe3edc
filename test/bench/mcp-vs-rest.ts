/**
 * Benchmark: `tools/call validate_manifest` over MCP against its REST twin
 * `POST /api/validate/manifest`, same CRM manifest, same server, same run. The load generator
 * (autocannon) runs in a second process so it does not share the server's event loop.
 *
 * Also measures the per-request construction the stateless endpoint does (McpServer + 19 tools +
 * 5 resources + transport), against what the SDK's defaults would cost (an Ajv instance per
 * server, `tools/list` converting every zod schema on each call).
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
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createContractHandler } from '../../src/index.ts';
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
  const mcp = await perCall('in process: MCP tools/call validate_manifest (CRM)', 2000, () =>
    handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: mcpBody })).then((r) => r.text()),
  );
  console.log(`in-process CPU ratio REST / MCP (= relative throughput): ${(rest / mcp).toFixed(2)}`);
  await perCall('SDK defaults: McpServer + 19 registerTool (own Ajv each)', 500, () => {
    const server = new McpServer({ name: 'naive', version: '0' }, { capabilities: { tools: {}, resources: {} } });
    for (const tool of mcpTools) server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, () => ({ content: [] }));
    return server;
  });
  await perCall('SDK defaults: tools/list converting 38 zod schemas per call', 100, () =>
    mcpTools.map((tool) => [z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }), z.toJSONSchema(tool.output, { target: 'draft-7', io: 'output', unrepresentable: 'any' })]),
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

async function load(url: string, bodyFile: string, extraHeaders: string[]): Promise<Result> {
  const args = ['-c', '16', '-d', String(duration), '-m', 'POST', '-H', 'content-type=application/json', ...extraHeaders, '-i', bodyFile, '-j', url];
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
  writeFileSync(
    mcpBody,
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest } } }),
  );
  const mcpHeaders = ['-H', 'accept=application/json, text/event-stream'];

  console.log(`\nHTTP, 16 connections, ${duration}s per round, CRM manifest (${JSON.stringify(manifest).length} bytes):`);
  await load(`${base}/api/validate/manifest`, restBody, []); // warm-up
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let round = 0; round < roundCount; round++) {
    // Alternate which goes first so a load swing does not always favour the same side.
    const restFirst = round % 2 === 0;
    const first = await load(restFirst ? `${base}/api/validate/manifest` : `${base}/mcp`, restFirst ? restBody : mcpBody, restFirst ? [] : mcpHeaders);
    const second = await load(restFirst ? `${base}/mcp` : `${base}/api/validate/manifest`, restFirst ? mcpBody : restBody, restFirst ? mcpHeaders : []);
    const [rest, mcp] = restFirst ? [first, second] : [second, first];
    ratios.push(mcp.requests.average / rest.requests.average);
    cpuRatios.push(rest.cpuPerRequest / mcp.cpuPerRequest);
    for (const [name, r] of [['REST POST /api/validate/manifest', rest], ['MCP tools/call validate_manifest', mcp]] as const) {
      console.log(
        `  round ${round + 1} ${name.padEnd(34)} ${r.requests.average.toFixed(0).padStart(7)} req/s  ${r.cpuPerRequest.toFixed(0).padStart(5)} µs server CPU/req  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx} errors ${r.errors}`,
      );
    }
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2;
  };
  const show = (values: number[]) => values.map((r) => r.toFixed(2)).join(', ');
  console.log(`\nratio MCP / REST requests per second: median ${median(ratios).toFixed(2)} (per round: ${show(ratios)})`);
  console.log(`ratio REST / MCP server CPU per request (load-independent): median ${median(cpuRatios).toFixed(2)} (per round: ${show(cpuRatios)})`);
  server.closeAllConnections();
  server.close();
}

await main();
