/**
 * The endpoint at the HTTP level with plain `fetch` (a curl-style client): JSON-RPC without
 * `initialize`, notifications, version negotiation, and every refusal (403/405/406/413/415/400).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_HEADERS, rpc, startHost, type TestHost } from './support.ts';

let host: TestHost;
let small: TestHost;

beforeAll(async () => {
  host = await startHost();
  small = await startHost({ bodyLimit: 4096 });
});

afterAll(async () => {
  await host?.stop();
  await small?.stop();
});

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describe('JSON-RPC without initialize', () => {
  it('answers tools/list directly, with no session id', async () => {
    const response = await rpc(host.mcpUrl, listTools);
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.body.id).toBe(1);
    expect(response.body.result.tools).toHaveLength(19);
  });

  it('answers tools/call directly with content[0] summary, content[1] JSON and structuredContent', async () => {
    const response = await rpc(host.mcpUrl, {
      jsonrpc: '2.0',
      id: 'call-1',
      method: 'tools/call',
      params: { name: 'validate_manifest', arguments: { manifest: { kind: 'Cell' } } },
    });
    expect(response.status).toBe(200);
    const result = response.body.result;
    expect(result.content[0].type).toBe('text');
    expect(JSON.parse(result.content[1].text)).toEqual(result.structuredContent);
    expect(result.structuredContent.valid).toBe(false);
  });

  it('answers ping, resources/list and an unknown method (-32601)', async () => {
    expect((await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'ping' })).body.result).toEqual({});
    const resources = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'resources/list' });
    expect(resources.body.result.resources).toHaveLength(5);
    const unknown = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 4, method: 'prompts/list' });
    expect(unknown.body.error.code).toBe(-32601);
  });

  it('answers a JSON-RPC batch mixing tools and resources', async () => {
    const response = await rpc(host.mcpUrl, [
      listTools,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'validate_page', arguments: { page: {} } } },
      { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'platform://docs/field-types' } },
    ]);
    expect(response.status).toBe(200);
    const byId = new Map((response.body as Array<{ id: number; result: any }>).map((r) => [r.id, r.result]));
    expect(byId.get(1).tools).toHaveLength(19);
    expect(byId.get(2).structuredContent.valid).toBe(false);
    expect(byId.get(3).contents[0].text).toMatch(/^# Field types/);
  });

  it('refuses tools/call arguments that are not an object with -32602 (invalid params)', async () => {
    for (const args of [['crm'], 'crm', 5, null]) {
      const response = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'list_examples', arguments: args } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ jsonrpc: '2.0', id: 6, error: { code: -32602, message: expect.stringMatching(/"arguments" must be an object/) } });
    }
  });

  it('refuses such a call inside a batch and answers the rest of the batch', async () => {
    const response = await rpc(host.mcpUrl, [
      listTools,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_examples', arguments: [] } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    expect(response.status).toBe(200);
    const byId = new Map((response.body as Array<{ id: number; result?: any; error?: any }>).map((r) => [r.id, r]));
    expect(byId.size).toBe(2);
    expect(byId.get(1)!.result.tools).toHaveLength(19);
    expect(byId.get(2)!.error.code).toBe(-32602);
    const onlyRefused = await rpc(host.mcpUrl, [{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_examples', arguments: 1 } }]);
    expect(onlyRefused.body).toEqual([{ jsonrpc: '2.0', id: 3, error: { code: -32602, message: expect.any(String) } }]);
  });

  it('reports an unknown tool as an error result, not a crash', async () => {
    const response = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'make_coffee', arguments: {} } });
    expect(response.status).toBe(200);
    const failed = response.body.result?.isError === true || response.body.error !== undefined;
    expect(failed).toBe(true);
    expect(JSON.stringify(response.body)).toMatch(/make_coffee/);
  });
});

describe('initialize and versions', () => {
  it.each(['2025-06-18', '2025-11-25'])('negotiates protocol version %s and names itself cellgate', async (version) => {
    const response = await rpc(host.mcpUrl, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'curl', version: '0' } },
    });
    expect(response.status).toBe(200);
    expect(response.body.result.protocolVersion).toBe(version);
    expect(response.body.result.serverInfo.name).toBe('cellgate');
    expect(response.body.result.capabilities.tools).toBeDefined();
    expect(response.body.result.capabilities.resources).toBeDefined();
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });

  it('accepts requests carrying either mcp-protocol-version header and refuses an unknown one', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      expect((await rpc(host.mcpUrl, listTools, { ...MCP_HEADERS, 'mcp-protocol-version': version })).status).toBe(200);
    }
    const refused = await rpc(host.mcpUrl, listTools, { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/Unsupported protocol version/);
  });

  it('answers a notification with 202 and no body', async () => {
    const response = await rpc(host.mcpUrl, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(response.status).toBe(202);
    expect(response.body).toBeNull();
  });
});

describe('refusals', () => {
  it.each(['GET', 'DELETE'])('%s is 405 with Allow: POST and a JSON-RPC error body', async (method) => {
    const response = await fetch(host.mcpUrl, { method, headers: { accept: 'application/json, text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    const body = await response.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(body.error.message).toMatch(/Use POST/);
  });

  it('406 when Accept lacks text/event-stream', async () => {
    const response = await rpc(host.mcpUrl, listTools, { 'content-type': 'application/json', accept: 'application/json' });
    expect(response.status).toBe(406);
    expect(response.body.error.message).toMatch(/Not Acceptable/);
  });

  it('415 when the body is not JSON', async () => {
    const response = await rpc(host.mcpUrl, JSON.stringify(listTools), { ...MCP_HEADERS, 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(response.body.error.message).toMatch(/Unsupported Media Type/);
  });

  it('400: parse error (-32700) for malformed JSON, invalid request (-32600) for JSON that is not JSON-RPC', async () => {
    const malformed = await rpc(host.mcpUrl, '{"jsonrpc": "2.0", ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const notRpc = await rpc(host.mcpUrl, { hello: 'world' });
    expect(notRpc.status).toBe(400);
    expect(notRpc.body.error.code).toBe(-32600);
  });

  it('413 when the body exceeds the handler body limit', async () => {
    const big = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest: { pad: 'x'.repeat(8000) } } } };
    const response = await rpc(small.mcpUrl, big);
    expect(response.status).toBe(413);
    expect(response.body.error.message).toMatch(/4096/);
    expect((await rpc(small.mcpUrl, listTools)).status).toBe(200);
  });
});

describe('DNS-rebinding protection', () => {
  const withHeaders = (extra: Record<string, string>) => rpc(host.mcpUrl, listTools, { ...MCP_HEADERS, ...extra });

  it('refuses a foreign Host with 403', async () => {
    // fetch forbids setting Host, so this goes through node:http directly.
    const { request } = await import('node:http');
    const url = new URL(host.mcpUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...MCP_HEADERS, host: 'evil.example.com' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(listTools));
    });
    expect(status).toBe(403);
  });

  it('refuses a foreign Origin with 403 and accepts loopback or absent origins', async () => {
    const refused = await withHeaders({ origin: 'http://evil.example.com' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/Origin/);
    expect((await withHeaders({ origin: 'null' })).status).toBe(403);
    expect((await withHeaders({ origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await withHeaders({ origin: 'http://127.0.0.1' })).status).toBe(200);
    expect((await withHeaders({})).status).toBe(200);
  });
});

describe('handler options', () => {
  it('mcp: false removes the endpoint; mcp.path moves it', async () => {
    const off = await startHost({ mcp: false });
    const moved = await startHost({ mcp: { path: '/agents/mcp' } });
    try {
      expect((await rpc(`${off.url}/mcp`, listTools)).status).toBe(404);
      expect((await rpc(`${moved.url}/mcp`, listTools)).status).toBe(404);
      const response = await rpc(`${moved.url}/agents/mcp`, listTools);
      expect(response.status).toBe(200);
      expect(response.body.result.tools).toHaveLength(19);
    } finally {
      await off.stop();
      await moved.stop();
    }
  });

  it('mcp.allowedHosts replaces the loopback default', async () => {
    const deployed = await startHost({ mcp: { allowedHosts: ['api.example.com'] } });
    try {
      const refused = await rpc(deployed.mcpUrl, listTools);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/127\.0\.0\.1/);
    } finally {
      await deployed.stop();
    }
  });
});
