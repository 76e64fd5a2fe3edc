/**
 * The direct `tools/call` path answers exactly what the SDK path answers: same status, same
 * content type, same bytes, for every tool in both revisions, over real HTTP servers (one endpoint
 * with the direct path, one without). Whatever the direct path does not recognise exactly falls
 * back to the SDK, so the protocol's refusals (bad params, header mismatches, unknown tools) stay
 * the SDK's own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractHandler } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';
import { answerText, directToolCall } from '../../src/contract/mcp/direct-call.ts';
import { SERVER_INFO } from '../../src/contract/mcp/server.ts';
import { createMcpEndpoint } from '../../src/contract/mcp/endpoint.ts';
import { mcpTools } from '../../src/contract/mcp/index.ts';
import { MCP_ENVELOPE_CACHE_ENTRIES, MCP_ENVELOPE_CACHE_KEY_LENGTH } from '../../src/limits.ts';
import { MCP_HEADERS } from './support.ts';

const MODERN = '2026-07-28';
const context = createContractHandler().context;
const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** Valid arguments for every tool (scaffold names are invalid-free and side-effect free over HTTP). */
const ARGUMENTS: Record<string, Record<string, unknown>> = {
  get_primitive_contract: { primitive: 'form' },
  get_example_manifest: { example: 'crm-manifest' },
  get_primitive_examples: { key: 'form' },
  scaffold_primitive: { name: 'price-tag', label: 'Price tag' },
  validate_primitive_props: { key: 'form', props: {} },
  recommend_manifest_structure: { goal: 'a CRM for a small sales team' },
  suggest_page_set_for_entities: { entities: ['customer'] },
  suggest_relations: {
    entities: [
      { key: 'invoice', fields: ['customer_id'] },
      { key: 'customer', fields: ['name'] },
    ],
  },
  explain_validation_errors: { errors: [{ field: 'kind', message: 'Required' }] },
  validate_manifest: { manifest: {} },
  validate_entity: { entity: {} },
  validate_page: { page: {} },
  normalize_manifest: { manifest: {} },
};

/** A 2025-era call (no `_meta`) and its headers. */
function legacy(name: string, args: unknown, id: unknown = 1): [Record<string, string>, unknown] {
  return [{ ...MCP_HEADERS }, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }];
}

/** A 2026-07-28 call with its envelope and the three standard headers. */
function modern(name: string, args: unknown, id: unknown = 1): [Record<string, string>, unknown] {
  return [
    { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: meta } },
  ];
}

let servers: Server[] = [];
let direct = '';
let viaSdk = '';

async function listen(direct: boolean): Promise<string> {
  const endpoint = createMcpEndpoint(context, {}, { direct });
  // The Node adapter takes a handler that can also say "no route here"; this one always answers.
  const server = createServer(toNodeHandler(Object.assign(endpoint, { match: endpoint })));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

beforeAll(async () => {
  direct = await listen(true);
  viaSdk = await listen(false);
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  servers = [];
});

/** The raw answer of one POST: status, content type and body text. */
async function post(url: string, [headers, body]: [Record<string, string>, unknown]): Promise<[number, string | null, string]> {
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return [response.status, response.headers.get('content-type'), await response.text()];
}

/** Asserts both endpoints answer `call` with the same bytes; returns the answer. */
async function same(call: [Record<string, string>, unknown]): Promise<[number, string | null, string]> {
  const [a, b] = await Promise.all([post(direct, call), post(viaSdk, call)]);
  expect(a).toEqual(b);
  return a;
}

/** Whether the direct path takes `call` (a promise) or leaves it to the SDK (`undefined`). */
function taken([headers, body]: [Record<string, string>, unknown]): boolean {
  const request = new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
  return directToolCall(context, request, body) !== undefined;
}

describe('direct tools/call path', () => {
  it('answers every tool in both revisions with the SDK path’s exact bytes', async () => {
    expect(mcpTools).toHaveLength(19);
    for (const tool of mcpTools) {
      const args = ARGUMENTS[tool.name] ?? {};
      for (const call of [legacy(tool.name, args), modern(tool.name, args, `id-${tool.name}`)]) {
        expect(taken(call), tool.name).toBe(true);
        const [status, , text] = await same(call);
        expect(status).toBe(200);
        expect(JSON.parse(text).result.content.length).toBeGreaterThan(0);
      }
    }
  });

  it('answers an application error (isError, with its hint) like the SDK path', async () => {
    for (const call of [legacy('get_example_manifest', { example: 'nope' }), modern('get_example_manifest', { example: 'nope' })]) {
      expect(taken(call)).toBe(true);
      const [, , text] = await same(call);
      expect(JSON.parse(text).result.isError).toBe(true);
    }
  });

  it('gives the same answer for the CRM example, valid, in both revisions', async () => {
    const manifest = (await import('cellgate')).getExample('crm-manifest');
    for (const call of [legacy('validate_manifest', { manifest }), modern('validate_manifest', { manifest })]) {
      const [, , text] = await same(call);
      expect(JSON.parse(text).result.structuredContent).toEqual({ valid: true, errors: [] });
    }
    const [, , text] = await same(modern('validate_manifest', { manifest }));
    expect(JSON.parse(text).result).toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'cellgate' } } });
  });

  it('leaves to the SDK what it does not recognise exactly, and the answers stay the SDK’s', async () => {
    const [modernHeaders, modernBody] = modern('validate_manifest', { manifest: {} });
    const body = modernBody as { params: Record<string, unknown> };
    const fallbacks: Array<[string, [Record<string, string>, unknown]]> = [
      ['arguments the schema refuses', legacy('validate_manifest', { manifest: 'no' })],
      ['arguments the schema refuses, 2026-07-28', modern('validate_manifest', { manifest: 'no' })],
      ['missing arguments', legacy('validate_manifest', undefined)],
      ['unknown tool', legacy('no_such_tool', {})],
      ['unknown tool, 2026-07-28', modern('no_such_tool', {})],
      ['a fractional id', legacy('validate_manifest', { manifest: {} }, 1.5)],
      ['a null id', legacy('validate_manifest', { manifest: {} }, null)],
      [
        'a 2025-era _meta',
        [MCP_HEADERS, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_page', arguments: { page: {} }, _meta: { progressToken: 7 } } }],
      ],
      [
        'a member beside the request',
        [MCP_HEADERS, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_page', arguments: { page: {} } }, result: {} }],
      ],
      ['an extra params member', [modernHeaders, { ...body, params: { ...body.params, task: { ttl: 1000 } } }]],
      ['an Mcp-Name naming another tool', [{ ...modernHeaders, 'mcp-name': 'validate_page' }, modernBody]],
      ['no Mcp-Name header', [{ ...modernHeaders, 'mcp-name': '' }, modernBody]],
      ['no Mcp-Method header', [Object.fromEntries(Object.entries(modernHeaders).filter(([k]) => k !== 'mcp-method')), modernBody]],
      ['no protocol-version header', [Object.fromEntries(Object.entries(modernHeaders).filter(([k]) => k !== 'mcp-protocol-version')), modernBody]],
      [
        'an envelope missing its capabilities',
        [modernHeaders, { ...body, params: { ...body.params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } }],
      ],
      ['a 2025-era header with a modern envelope', [{ ...modernHeaders, 'mcp-protocol-version': '2025-11-25' }, modernBody]],
      ['a modern header without an envelope', [{ ...MCP_HEADERS, 'mcp-protocol-version': MODERN }, legacy('validate_page', { page: {} })[1]]],
    ];
    for (const [label, call] of fallbacks) {
      expect(taken(call), label).toBe(false);
      await same(call);
    }
    // The SDK words a schema refusal as an isError tool result; the fallback keeps that wording.
    const [status, , text] = await same(legacy('validate_manifest', { manifest: 'no' }));
    expect([status, JSON.parse(text).result?.isError]).toEqual([200, true]);
    const [badStatus, , badText] = await same(legacy('no_such_tool', {}));
    expect(badStatus).toBe(200);
    expect(badText).toMatch(/no_such_tool/);
  });

  it('judges every envelope as the SDK does, also past the bound of remembered verdicts', () => {
    const call = (envelope: Record<string, unknown>): [Record<string, string>, unknown] => {
      const [headers, body] = modern('validate_page', { page: {} });
      const params = (body as { params: Record<string, unknown> }).params;
      return [headers, { ...(body as object), params: { ...params, _meta: { ...meta, ...envelope } } }];
    };
    for (let i = 0; i < MCP_ENVELOPE_CACHE_ENTRIES + 10; i++) {
      expect(taken(call({ 'io.modelcontextprotocol/clientInfo': { name: `client-${i}`, version: '1.0.0' } }))).toBe(true);
    }
    // A malformed envelope is refused every time, remembered or not, short or longer than the bound.
    const bad = { 'io.modelcontextprotocol/clientInfo': 5 };
    expect([taken(call(bad)), taken(call(bad))]).toEqual([false, false]);
    const long = { 'io.modelcontextprotocol/clientInfo': { name: 'x'.repeat(MCP_ENVELOPE_CACHE_KEY_LENGTH), version: '1' } };
    expect([taken(call(long)), taken(call(long))]).toEqual([true, true]);
    expect(taken(call({ ...long, 'io.modelcontextprotocol/clientCapabilities': 'none' }))).toBe(false);
  });

  it('names the usual envelope by its claim alone, and still judges it as the SDK does', () => {
    const withEnvelope = (envelope: unknown): [Record<string, string>, unknown] => {
      const [headers, body] = modern('validate_page', { page: {} });
      const params = (body as { params: Record<string, unknown> }).params;
      return [headers, { ...(body as object), params: { ...params, _meta: envelope } }];
    };
    const version = 'io.modelcontextprotocol/protocolVersion';
    const capabilities = 'io.modelcontextprotocol/clientCapabilities';
    // The usual shape, in either member order, twice (the second verdict is the remembered one).
    for (const envelope of [meta, { [capabilities]: {}, [version]: MODERN }])
      expect([taken(withEnvelope(envelope)), taken(withEnvelope(envelope))]).toEqual([true, true]);
    // The usual shape with a claim the headers do not make, or no revision at all: refused every time.
    for (const claim of ['2099-01-01', '2025-11-25', '', 'x'.repeat(40)]) {
      const envelope = { [version]: claim, [capabilities]: {} };
      expect([taken(withEnvelope(envelope)), taken(withEnvelope(envelope))], claim).toEqual([false, false]);
    }
    // Not the usual shape: capabilities declared, an own `__proto__` member, an array: judged from their text.
    expect(taken(withEnvelope({ ...meta, [capabilities]: { sampling: {} } }))).toBe(true);
    const protoKey = JSON.parse(`{"${version}":"${MODERN}","${capabilities}":{"__proto__":{}}}`) as unknown;
    expect(taken(withEnvelope(protoKey))).toBe(taken(withEnvelope(JSON.parse(JSON.stringify(protoKey)))));
    expect(taken(withEnvelope({ ...meta, [capabilities]: [] }))).toBe(false);
  });

  it('writes a result as JSON.stringify would, with the modern members after the tool’s own', () => {
    const results = [
      { content: [{ type: 'text' as const, text: 'ok "quoted" é \u2028' }], structuredContent: { valid: true, errors: [] } },
      { content: [{ type: 'text' as const, text: 'Error: nope' }], isError: true },
    ];
    for (const result of results) {
      for (const id of [1, 0, -7, 'a "quoted" id', '']) {
        expect(answerText(result, false, id)).toBe(JSON.stringify({ result, jsonrpc: '2.0', id }));
        const modernResult = { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } };
        expect(answerText(result, true, id)).toBe(JSON.stringify({ result: modernResult, jsonrpc: '2.0', id }));
      }
    }
  });
});
