/**
 * Both MCP revisions on both transports, with the official clients: the 1.x `Client` of
 * `@modelcontextprotocol/sdk` speaks 2025-11-25 (initialize handshake), the 2.x `Client` of
 * `@modelcontextprotocol/client` pinned to 2026-07-28 (stateless, `_meta` on every request). Each
 * lists the 19 tools and 5 resources, calls every tool and reads every resource, over the HTTP
 * endpoint and over `cellgate mcp` (stdio). A plain fetch of a 2026-07-28 request works too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Http1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as Stdio1, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as Client2, StreamableHTTPClientTransport as Http2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2 } from '@modelcontextprotocol/client/stdio';
import { MCP_HEADERS, rpc, startHost, type TestHost } from './support.ts';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const project = mkdtempSync(join(tmpdir(), 'cellgate-mcp-revisions-'));
const MODERN = '2026-07-28';

/** Valid arguments for each of the 19 tools (`tag` keeps scaffolded names apart between connections). */
const calls = (tag: string): ReadonlyArray<[string, Record<string, unknown>]> => [
  ['get_manifest_schema', {}],
  ['get_entity_definition_schema', {}],
  ['get_page_schema', {}],
  ['get_capability_schema', {}],
  ['list_primitives', {}],
  ['get_primitive_contract', { primitive: 'form' }],
  ['list_examples', {}],
  ['get_example_manifest', { example: 'crm-manifest' }],
  ['get_primitive_examples', { key: 'form' }],
  ['scaffold_primitive', { name: `price-tag-${tag}`, label: 'Price tag' }],
  ['validate_primitive_props', { key: 'form', props: {} }],
  ['recommend_manifest_structure', { goal: 'a CRM for a small sales team' }],
  ['suggest_page_set_for_entities', { entities: ['customer'] }],
  [
    'suggest_relations',
    {
      entities: [
        { key: 'invoice', fields: ['customer_id'] },
        { key: 'customer', fields: ['name'] },
      ],
    },
  ],
  ['explain_validation_errors', { errors: [{ field: 'kind', message: 'Required' }] }],
  ['validate_manifest', { manifest: {} }],
  ['validate_entity', { entity: {} }],
  ['validate_page', { page: {} }],
  ['normalize_manifest', { manifest: {} }],
];

/** What both client generations offer for this test. */
interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string; outputSchema?: unknown }> }>;
  listResources(): Promise<{ resources: Array<{ uri: string }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; text?: string }> }>;
  close(): Promise<void>;
}

let host: TestHost;

beforeAll(async () => {
  host = await startHost();
});

afterAll(async () => {
  await host?.stop();
  rmSync(project, { recursive: true, force: true });
});

const stdioParams = () => ({
  command: tsx,
  args: [join(root, 'src/cli/index.ts'), 'mcp', '--project', project],
  cwd: root,
  env: getDefaultEnvironment(),
  stderr: 'pipe' as const,
});

const connections: Record<string, () => Promise<{ client: AnyClient; era: string | undefined }>> = {
  'sdk 1.x client, 2025-11-25, HTTP': async () => {
    const client = new Client1({ name: 'v1-http', version: '1.0.0' });
    await client.connect(new Http1(new URL(host.mcpUrl)));
    return { client: client as unknown as AnyClient, era: client.getServerCapabilities() ? 'legacy' : undefined };
  },
  'sdk 1.x client, 2025-11-25, stdio': async () => {
    const client = new Client1({ name: 'v1-stdio', version: '1.0.0' });
    await client.connect(new Stdio1(stdioParams()));
    return { client: client as unknown as AnyClient, era: client.getServerCapabilities() ? 'legacy' : undefined };
  },
  'client 2.x, 2026-07-28, HTTP': async () => {
    const client = new Client2({ name: 'v2-http', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new Http2(new URL(host.mcpUrl)));
    return { client: client as unknown as AnyClient, era: client.getProtocolEra() };
  },
  'client 2.x, 2026-07-28, stdio': async () => {
    const client = new Client2({ name: 'v2-stdio', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new Stdio2(stdioParams()));
    return { client: client as unknown as AnyClient, era: client.getProtocolEra() };
  },
};

describe.each(Object.keys(connections))('%s', (name) => {
  let client: AnyClient;
  let era: string | undefined;

  beforeAll(async () => {
    ({ client, era } = await connections[name]!());
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  });

  it('negotiates the expected revision', () => {
    expect(era).toBe(name.includes(MODERN) ? 'modern' : 'legacy');
  });

  it('lists the 19 tools, each with an output schema, and the 5 resources', async () => {
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(
      calls('')
        .map(([tool]) => tool)
        .sort(),
    );
    for (const tool of tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
      'platform://docs/manifest-format',
      'platform://docs/entity-schema',
      'platform://docs/page-types',
      'platform://docs/field-types',
      'platform://docs/primitive-catalog',
    ]);
  });

  it('calls every tool: summary, JSON block and the same data as structuredContent', async () => {
    for (const [tool, args] of calls(Object.keys(connections).indexOf(name).toString())) {
      // The client validates structuredContent against the listed outputSchema itself.
      const result = (await client.callTool({ name: tool, arguments: args })) as {
        content: Array<{ type: string; text: string }>;
        structuredContent?: Record<string, unknown>;
        isError?: boolean;
      };
      expect(result.isError ?? false, `${tool}: ${result.content[0]?.text}`).toBe(false);
      expect(result.content, tool).toHaveLength(2);
      expect(result.content[0]!.text.length, tool).toBeGreaterThan(0);
      const data = JSON.parse(result.content[1]!.text) as unknown;
      expect(result.structuredContent, tool).toEqual(Array.isArray(data) ? expect.any(Object) : data);
    }
  });

  it('reads every resource as markdown', async () => {
    for (const uri of (await client.listResources()).resources.map((r) => r.uri)) {
      const read = await client.readResource({ uri });
      expect(read.contents[0]!.uri).toBe(uri);
      expect(read.contents[0]!.text).toMatch(/^# /);
    }
  });
});

/** A 2026-07-28 request as curl would send it: no handshake, the claim in `_meta`, the headers. */
function modern(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  const headers: Record<string, string> = { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (typeof params['name'] === 'string') headers['mcp-name'] = params['name'];
  if (typeof params['uri'] === 'string') headers['mcp-name'] = params['uri'];
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  };
  return rpc(host.mcpUrl, body, headers);
}

describe('2026-07-28 with plain fetch', () => {
  it('answers server/discover with the revision, capabilities and server info', async () => {
    const response = await modern('server/discover');
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining([MODERN]),
      capabilities: { tools: expect.any(Object), resources: expect.any(Object) },
    });
  });

  it('lists tools with resultType and cache fields, and no session', async () => {
    const response = await modern('tools/list');
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.body.result.tools).toHaveLength(19);
    expect(response.body.result).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: expect.any(String) });
  });

  it('calls a tool and reads a resource without any handshake', async () => {
    const call = await modern('tools/call', { name: 'validate_manifest', arguments: { manifest: { kind: 'Cell' } } });
    expect(call.body.result.resultType).toBe('complete');
    expect(call.body.result.structuredContent.valid).toBe(false);
    expect(JSON.parse(call.body.result.content[1].text)).toEqual(call.body.result.structuredContent);
    const read = await modern('resources/read', { uri: 'platform://docs/field-types' });
    expect(read.body.result.contents[0].text).toMatch(/^# Field types/);
  });

  it('refuses a header that disagrees with the body, and an envelope-less modern request', async () => {
    const mismatch = await rpc(
      host.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
      },
      { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'resources/list' },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBeLessThan(0);
    const bare = await rpc(
      host.mcpUrl,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { ...MCP_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    );
    expect(bare.body.error.code).toBe(-32602);
  });

  it('keeps the Origin guard and 405 on GET for modern clients too', async () => {
    const foreign = await fetch(host.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, origin: 'http://evil.example' }, body: '{}' });
    expect(foreign.status).toBe(403);
    const get = await fetch(host.mcpUrl, { headers: { 'mcp-protocol-version': MODERN } });
    expect(get.status).toBe(405);
  });
});
