/**
 * Hostile JSON-RPC over both transports: a message nested thousands of levels deep, and
 * `initialize` / `resources/read` / `tools/call` params of the wrong type. Each gets -32602
 * (invalid params) with a one-line message, never -32603 with raw zod text or a crash, and the
 * server keeps answering afterwards.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_HEADERS, rest, rpc, startHost, type TestHost } from './support.ts';
import { crmManifest } from '../unit/contract/validate-fixtures.ts';
import { MAX_ERROR_TEXT_LENGTH, MAX_STDIO_MESSAGE_BYTES } from '../../src/limits.ts';

const root = resolve(import.meta.dirname, '../..');
const MODERN = '2026-07-28';
const crm = crmManifest();
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** `{ a: { a: … } }`, `levels` objects deep. */
function deep(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** The JSON text of `{"a":{"a":…}}`, `levels` deep, built as text (JSON.stringify itself recurses). */
const deepText = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

/** A tools/call normalize_manifest with 5,000-deep options, as JSON text (`meta`: the 2026-07-28 envelope). */
const deepNormalize = (id: number, meta = false) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${meta ? `"_meta":${JSON.stringify(ENVELOPE)},` : ''}` +
  `"name":"normalize_manifest","arguments":{"manifest":{},"options":${deepText(5000)}}}}`;

/** The bad-params requests of #12 item 13 and what the message must name. */
const BAD_PARAMS: ReadonlyArray<[string, Record<string, unknown>, RegExp]> = [
  ['resources/read', { uri: 5 }, /resources\/read "uri" must be a string/],
  ['resources/read', {}, /resources\/read "uri" must be a string/],
  ['initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } }, /initialize "protocolVersion" must be a string/],
  [
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: 'all', clientInfo: { name: 'x', version: '1' } },
    /initialize "capabilities" must be an object/,
  ],
  ['tools/call', { name: 7 }, /tools\/call "name" must be a string/],
];

/** Every member name of Object.prototype (`toString`, `constructor`, `__proto__`, …): method names a lookup must not find. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** Asserts a JSON-RPC "method not found" for a method named after an Object.prototype member. */
function expectMethodNotFound(body: { id?: unknown; error?: { code: number; message: string } }, id: number): void {
  expect(body.id).toBe(id);
  expect(body.error?.code).toBe(-32601);
}

/** Asserts a clean invalid-params answer: -32602, one line, no zod dump. */
function expectInvalidParams(body: { id?: unknown; error?: { code: number; message: string } }, id: number, mention: RegExp): void {
  expect(body.id).toBe(id);
  expect(body.error?.code).toBe(-32602);
  expect(body.error?.message).toMatch(mention);
  expect(body.error?.message).not.toMatch(/\n|invalid_type|"code"/);
}

describe('over HTTP', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('refuses 5,000-deep normalize_manifest options with -32602 and keeps serving (2025 revision)', async () => {
    const response = await rpc(host.mcpUrl, deepNormalize(1));
    expect(response.status).toBe(200);
    expectInvalidParams(response.body, 1, /nested deeper than 64 levels/);
    expect((await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'ping' })).body.result).toEqual({});
  });

  it('refuses the same over 2026-07-28', async () => {
    const message = deepNormalize(3, true);
    const headers = { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'normalize_manifest' };
    const response = await rpc(host.mcpUrl, message, headers);
    expectInvalidParams(response.body, 3, /nested deeper than 64 levels/);
  });

  it('accepts arguments exactly as deep as a REST body may be', async () => {
    const response = await rpc(host.mcpUrl, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'validate_manifest', arguments: { manifest: deep(63) } },
    });
    expect(response.body.result.structuredContent.valid).toBe(false);
  });

  // validate_manifest's direct path skips the endpoint's depth scan for arguments its compiled check
  // proves shallow; a deep part anywhere else in the message must still be refused as before.
  it.each([
    ['the manifest (a member of any content)', (extra: string) => `{"manifest":{"apiVersion":"platform/v1alpha1","x":${extra}}}`, false],
    ['a key beside the manifest', (extra: string) => `{"manifest":${JSON.stringify(crm)},"x":${extra}}`, false],
    ['the _meta envelope', (_extra: string) => `{"manifest":${JSON.stringify(crm)}}`, true],
  ] as const)('validate_manifest with 5,000 levels in %s gets -32602 in both revisions', async (_where, args, inMeta) => {
    const deepValue = deepText(5000);
    for (const modern of [false, true]) {
      const meta = modern
        ? `"_meta":${inMeta ? `{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{},"x":${deepValue}}` : JSON.stringify(ENVELOPE)},`
        : inMeta
          ? `"_meta":{"x":${deepValue}},`
          : '';
      const text = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{${meta}"name":"validate_manifest","arguments":${args(deepValue)}}}`;
      const headers = modern ? { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'validate_manifest' } : MCP_HEADERS;
      const response = await rpc(host.mcpUrl, text, headers);
      expectInvalidParams(response.body, 7, /nested deeper than 64 levels/);
    }
  });

  it('validate_manifest answers a valid manifest as REST does, through the proven path, in both revisions', async () => {
    const overRest = await rest(`${host.url}/api/validate/manifest`, { manifest: crm });
    expect(overRest.body).toEqual({ valid: true, errors: [] });
    for (const [extra, headers] of [
      [{}, MCP_HEADERS],
      [{ _meta: ENVELOPE }, { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'validate_manifest' }],
    ] as const) {
      const call = { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest: crm }, ...extra } };
      expect((await rpc(host.mcpUrl, call, headers)).body.result.structuredContent).toEqual(overRest.body);
    }
  });

  // The direct tools/call path skips the walk of the document bounds only for a message too short
  // to exceed them; a longer one must still be walked, in both revisions, exactly as over REST.
  it.each([
    ['2025-11-25', {}, MCP_HEADERS],
    ['2026-07-28', { _meta: ENVELOPE }, { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'validate_manifest' }],
  ] as const)('validate_manifest over %s reports a manifest of more than 20,000 values as REST does', async (_revision, extra, headers) => {
    const manifest = { apiVersion: 'platform/v1alpha1', kind: 'Cell', values: new Array(20_001).fill(0) };
    const call = { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest }, ...extra } };
    const [mcp, overRest] = await Promise.all([rpc(host.mcpUrl, call, headers), rest(`${host.url}/api/validate/manifest`, { manifest })]);
    expect(overRest.body.errors).toEqual([{ field: 'root', message: expect.stringMatching(/more than 20000 values/) }]);
    expect(mcp.body.result.structuredContent).toEqual(overRest.body);
  });

  // The SDK's refusal of a claim the headers do not make quotes the claim (twice): its message is
  // cut, so the answer does not grow with the request.
  it('bounds an SDK refusal that quotes a 100,000-character protocol-version claim, and keeps serving', async () => {
    const claim = 'y'.repeat(100_000);
    const headers = { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'validate_manifest' };
    const call = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'validate_manifest', arguments: { manifest: {} }, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': claim } },
    };
    const response = await fetch(host.mcpUrl, { method: 'POST', headers, body: JSON.stringify(call) });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/json/);
    // The message and the mismatch detail in `data` each quote the claim; each is cut to the bound.
    expect(text.length).toBeLessThan(3 * MAX_ERROR_TEXT_LENGTH);
    expect(text).not.toContain('y'.repeat(MAX_ERROR_TEXT_LENGTH + 1));
    const body = JSON.parse(text);
    expect(body.error.code).toBe(-32020);
    expect(body.error.message).toMatch(/^Bad Request: the request headers and body disagree/);
    expect(body.error.message.endsWith('…')).toBe(true);
    // A short refusal passes unchanged, and the endpoint still answers.
    const short = await rpc(
      host.mcpUrl,
      { ...call, params: { ...call.params, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } },
      headers,
    );
    expect([short.status, short.body.error.code, short.body.error.message.endsWith('…')]).toEqual([400, -32020, false]);
    expect(short.body.error.message).toContain('2099-01-01');
    const fine = await rpc(host.mcpUrl, { ...call, params: { ...call.params, _meta: ENVELOPE } }, headers);
    expect(fine.body.result.structuredContent.valid).toBe(false);
  });

  it.each(BAD_PARAMS)('%s %j gets -32602 with a clean message', async (method, params, mention) => {
    const response = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 5, method, params });
    expect(response.status).toBe(200);
    expectInvalidParams(response.body, 5, mention);
  });

  it('a 2026-07-28 tools/call with matching headers and no _meta envelope gets -32602, not a 500', async () => {
    // #26 item 4: the direct path keyed its verdict cache with JSON.stringify(undefined) and threw.
    for (const name of ['validate_manifest', 'list_primitives']) {
      const headers = { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name };
      const response = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name, arguments: { manifest: crm } } }, headers);
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
      expect(response.body.error.code).toBe(-32602);
    }
  });

  it.each(PROTOTYPE_NAMES)('method %j (an Object.prototype member) is not found, in both revisions', async (method) => {
    const legacy = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 7, method, params: {} }, { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' });
    expect(legacy.status, JSON.stringify(legacy.body)).toBe(200);
    expectMethodNotFound(legacy.body, 7);
    const headers = { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method };
    const modern = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 8, method, params: { _meta: ENVELOPE } }, headers);
    expect(modern.status, JSON.stringify(modern.body)).toBeLessThan(500);
    expectMethodNotFound(modern.body, 8);
  });
});

describe('over stdio', () => {
  let child: ChildProcessWithoutNullStreams;
  const waiting = new Map<number, (message: any) => void>();
  /** Answers with `id: null`, for lines whose id could not be read. */
  const unaddressed: unknown[] = [];

  function request(message: { id: number } | string): Promise<any> {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    const id = typeof message === 'string' ? (JSON.parse(text) as { id: number }).id : message.id;
    return new Promise((resolveAnswer) => {
      waiting.set(id, resolveAnswer);
      child.stdin.write(`${text}\n`);
    });
  }

  beforeAll(async () => {
    child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, 'src/cli/index.ts'), 'mcp'], { cwd: root });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { id?: number | null };
      if (typeof message.id === 'number') waiting.get(message.id)?.(message);
      if (message.id === null) unaddressed.push(message);
    });
    const opened = await request({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    } as never);
    expect(opened.result.serverInfo.name).toBe('cellgate');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }, 60_000);

  afterAll(() => {
    child?.stdin.end();
  });

  it('refuses 5,000-deep normalize_manifest options with -32602 and keeps serving', async () => {
    expectInvalidParams(await request(deepNormalize(1)), 1, /nested deeper than 64 levels/);
    expect((await request({ jsonrpc: '2.0', id: 2, method: 'ping' } as never)).result).toEqual({});
  });

  it('answers a line that is not JSON or not a JSON-RPC message, and an oversized line, then reads on', async () => {
    unaddressed.length = 0;
    const invalid = request('{"jsonrpc":"2.0","id":41,"method":"ping","params":[]}');
    child.stdin.write('{not json\n\n[]\n');
    child.stdin.write(`"${'x'.repeat(MAX_STDIO_MESSAGE_BYTES)}"\n`);
    expect(await invalid).toEqual({ jsonrpc: '2.0', id: 41, error: { code: -32600, message: 'Invalid Request: the line is not a valid JSON-RPC message' } });
    // The next message is served: the oversized line did not close the connection.
    expect((await request({ jsonrpc: '2.0', id: 42, method: 'ping' } as never)).result).toEqual({});
    expect(unaddressed).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the line is not a valid JSON-RPC message' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: a message may take at most ${MAX_STDIO_MESSAGE_BYTES} bytes` } },
    ]);
  });

  it.each(BAD_PARAMS)('%s %j gets -32602 with a clean message', async (method, params, mention) => {
    expectInvalidParams(await request({ jsonrpc: '2.0', id: 5, method, params } as never), 5, mention);
  });

  it.each(PROTOTYPE_NAMES)('method %j (an Object.prototype member) is not found, and the server reads on', async (method) => {
    expectMethodNotFound(await request({ jsonrpc: '2.0', id: 7, method, params: {} } as never), 7);
    expect((await request({ jsonrpc: '2.0', id: 8, method: 'ping' } as never)).result).toEqual({});
  });
});
