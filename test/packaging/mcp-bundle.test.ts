/**
 * The MCP endpoint of the packed package, whose build bundles the MCP server SDK
 * (docs/decisions/B26.md). An app that has only cellgate's dependencies, no `@modelcontextprotocol`
 * package, serves MCP over HTTP and runs `cellgate mcp` over stdio; the official clients of both
 * revisions (the 1.x `Client` on 2025-11-25, the 2.x `Client` pinned to 2026-07-28) list, call and
 * read through them. The bundled SDK is loaded only by the MCP endpoint, runs on the app's zod
 * instead of a copy of its own, and its licences ship with it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as Stdio1, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as Http1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, StreamableHTTPClientTransport as Http2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2 } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, root, startProcess } from './pack.ts';

const MODERN = '2026-07-28';

const SERVER = `
import { createServer } from 'node:http';
import { createContractHandler } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';
const server = createServer(toNodeHandler(createContractHandler()));
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

let app: string;
let dist: string;
let project: string;
let host: { url: string; stop: () => void };

beforeAll(async () => {
  app = await createApp({ type: 'module', files: { 'server.mjs': SERVER } });
  dist = join(app, 'node_modules/cellgate/dist');
  project = mkdtempSync(join(tmpdir(), 'cellgate-mcp-bundle-'));
  host = await startProcess(['server.mjs'], { cwd: app, pattern: /listening on (http:\/\/\S+)/ });
}, 420_000);

afterAll(() => {
  host?.stop();
  for (const dir of [app, project]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What both client generations offer for this test. */
interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  listResources(): Promise<{ resources: Array<{ uri: string }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: boolean; structuredContent?: unknown }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ text?: string }> }>;
  close(): Promise<void>;
}

const stdio = () => ({
  command: process.execPath,
  args: [join(dist, 'cli.js'), 'mcp', '--project', project],
  cwd: app,
  env: getDefaultEnvironment(),
  stderr: 'pipe' as const,
});

const connections: Record<string, () => Promise<AnyClient>> = {
  'sdk 1.x client, 2025-11-25, HTTP': async () => {
    const client = new Client1({ name: 'bundle-v1-http', version: '1.0.0' });
    await client.connect(new Http1(new URL(`${host.url}/mcp`)));
    return client as unknown as AnyClient;
  },
  'sdk 1.x client, 2025-11-25, stdio': async () => {
    const client = new Client1({ name: 'bundle-v1-stdio', version: '1.0.0' });
    await client.connect(new Stdio1(stdio()));
    return client as unknown as AnyClient;
  },
  [`client 2.x, ${MODERN}, HTTP`]: async () => {
    const client = new Client2({ name: 'bundle-v2-http', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new Http2(new URL(`${host.url}/mcp`)));
    return client as unknown as AnyClient;
  },
  [`client 2.x, ${MODERN}, stdio`]: async () => {
    const client = new Client2({ name: 'bundle-v2-stdio', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new Stdio2(stdio()));
    return client as unknown as AnyClient;
  },
};

describe('the packed package without the MCP SDK installed', () => {
  it('has no @modelcontextprotocol package beside it', () => {
    expect(existsSync(join(app, 'node_modules/@modelcontextprotocol'))).toBe(false);
    expect(readdirSync(join(app, 'node_modules')).sort()).toEqual(['cellgate', 'jose', 'kysely', 'yaml', 'zod']);
  });

  describe.each(Object.keys(connections))('%s', (name) => {
    let client: AnyClient;

    beforeAll(async () => {
      client = await connections[name]!();
    }, 60_000);

    afterAll(async () => {
      await client?.close();
    });

    it('lists the 19 tools and the 5 resources, calls a tool and reads a resource', async () => {
      expect((await client.listTools()).tools).toHaveLength(19);
      expect((await client.listResources()).resources).toHaveLength(5);
      const result = await client.callTool({ name: 'get_primitive_contract', arguments: { primitive: 'form' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ key: 'form' });
      const resource = await client.readResource({ uri: 'platform://docs/field-types' });
      expect(resource.contents[0]!.text).toContain('#');
    });

    it('refuses arguments that do not match the tool’s schema (the SDK validates with the app’s zod)', async () => {
      const refused = await client.callTool({ name: 'get_primitive_contract', arguments: { primitive: 42 } }).then(
        (result) => result.isError === true,
        () => true,
      );
      expect(refused).toBe(true);
    });
  });
});

/** The files `file` imports statically (`import … from './x.js'`, not `import('./x.js')`), transitively. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(dist, file), 'utf8');
  for (const match of text.matchAll(/^(?:import|export)\b[^;]*?from '\.\/([^']+)'/gm)) staticClosure(match[1]!, seen);
  for (const match of text.matchAll(/^import '\.\/([^']+)'/gm)) staticClosure(match[1]!, seen);
  return seen;
}

describe('the bundled MCP SDK in dist', () => {
  /** The chunk that holds the SDK's `McpServer`. */
  const sdkChunk = () => readdirSync(dist).filter((file) => file.endsWith('.js') && readFileSync(join(dist, file), 'utf8').includes('var McpServer = class'));

  it('is one chunk that the root entry does not load until the MCP endpoint asks for it', () => {
    const chunks = sdkChunk();
    expect(chunks).toHaveLength(1);
    expect(staticClosure('index.js').has(chunks[0]!)).toBe(false);
    expect(staticClosure('index.js').size).toBeGreaterThan(1);
  });

  it('imports the app’s zod and carries no copy of it', () => {
    const text = readFileSync(join(dist, sdkChunk()[0]!), 'utf8');
    expect(text).toMatch(/^import \* as \w+ from 'zod\/v4';$/m);
    // zod's core defines every schema class through `$constructor`: a bundled copy would carry it.
    const copies = readdirSync(dist).filter((file) => file.endsWith('.js') && readFileSync(join(dist, file), 'utf8').includes('function $constructor('));
    expect(copies).toEqual([]);
  });

  it('ships the SDK’s licence and those of the code its build contains', () => {
    expect(readFileSync(join(dist, 'mcp-sdk/LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'node_modules/@modelcontextprotocol/server/LICENSE'), 'utf8'));
    const notices = readFileSync(join(dist, 'mcp-sdk/THIRD-PARTY-LICENSES.md'), 'utf8');
    for (const name of ['ajv', 'ajv-formats', 'fast-uri', 'fast-deep-equal', 'json-schema-traverse', 'content-type']) expect(notices).toContain(`## ${name} `);
  });
});
