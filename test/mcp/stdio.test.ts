/**
 * `cellgate mcp` over stdio, driven by the SDK's `StdioClientTransport` spawning the real command
 * (`tsx src/cli/index.ts mcp`): same tools and resources as HTTP, and local-mode scaffolding
 * confined to the `--project` folder.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const project = mkdtempSync(join(tmpdir(), 'cellgate-mcp-stdio-'));
let client: Client;

beforeAll(async () => {
  client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: tsx,
      args: [join(root, 'src/cli/index.ts'), 'mcp', '--project', project],
      cwd: root,
      env: getDefaultEnvironment(),
      stderr: 'pipe',
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close();
  rmSync(project, { recursive: true, force: true });
});

describe('cellgate mcp (stdio)', () => {
  it('reports serverInfo cellgate and lists the 19 tools and 5 resources', async () => {
    expect(client.getServerVersion()?.name).toBe('cellgate');
    expect((await client.listTools()).tools).toHaveLength(19);
    const resources = (await client.listResources()).resources;
    expect(resources.map((r) => r.uri)).toContain('platform://docs/primitive-catalog');
  });

  it('validates a manifest with the same result shape as HTTP', async () => {
    const result = (await client.callTool({ name: 'validate_manifest', arguments: { manifest: {} } })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ valid: false });
  });

  it('refuses tools/call arguments that are not an object with -32602, and keeps serving', async () => {
    const refused = await client
      .request({ method: 'tools/call', params: { name: 'list_examples', arguments: ['crm'] as never } }, CallToolResultSchema)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32602);
    expect((refused as McpError).message).toMatch(/"arguments" must be an object/);
    expect((await client.listTools()).tools).toHaveLength(19);
  });

  it('scaffolds into the --project folder in local mode', async () => {
    const result = (await client.callTool({ name: 'scaffold_primitive', arguments: { name: 'star-rating', label: 'Star rating' } })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ written: true });
    expect(readdirSync(project, { recursive: true }).length).toBeGreaterThan(0);
  });
});

describe('cellgate mcp arguments', () => {
  it('refuses a --project that is not a folder with exit code 2', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(tsx, [join(root, 'src/cli/index.ts'), 'mcp', '--project', join(project, 'missing')], { encoding: 'utf8', cwd: root });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/not a folder/);
  });
});
