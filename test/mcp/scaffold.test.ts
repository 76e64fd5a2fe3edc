/**
 * scaffold_primitive over HTTP (docs/decisions/A10.md): data only without a project folder; with one,
 * files land inside it, never outside, never over an existing file, and the new primitive is
 * then visible to the other tools.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parse } from 'yaml';
import { nodeProjectFolder } from 'cellgate/node';
import { connectClient, startHost, type TestHost } from './support.ts';

const sandbox = mkdtempSync(join(tmpdir(), 'cellgate-mcp-scaffold-'));
const project = join(sandbox, 'project');
mkdirSync(project);
let host: TestHost;
let client: Client;

beforeAll(async () => {
  host = await startHost({ projectFolder: nodeProjectFolder(project) });
  client = await connectClient(host.mcpUrl);
});

afterAll(async () => {
  await client?.close();
  await host?.stop();
  rmSync(sandbox, { recursive: true, force: true });
});

const scaffold = async (args: Record<string, unknown>) => (await client.callTool({ name: 'scaffold_primitive', arguments: args })) as CallToolResult;
const firstText = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('scaffold_primitive in local mode', () => {
  it('writes the listed files inside the project folder only', async () => {
    const result = await scaffold({ name: 'price-tag', label: 'Price tag', category: 'display' });
    expect(result.isError ?? false, firstText(result)).toBe(false);
    const data = result.structuredContent as { written: boolean; files: Array<{ path: string }> };
    expect(data.written).toBe(true);
    for (const file of data.files) {
      const absolute = resolve(project, file.path);
      expect(relative(project, absolute).startsWith('..')).toBe(false);
    }
    expect(readdirSync(sandbox)).toEqual(['project']);
    const written = readdirSync(project, { recursive: true }).map(String);
    for (const file of data.files) expect(written).toContain(file.path.split('/').join(sep));
  });

  it('refuses to overwrite an existing primitive', async () => {
    const again = await scaffold({ name: 'price-tag', label: 'Price tag' });
    expect(again.isError).toBe(true);
    expect(firstText(again)).toMatch(/exist/i);
  });

  it('five concurrent calls keep five entries in primitives.yaml', async () => {
    const names = ['con-a', 'con-b', 'con-c', 'con-d', 'con-e'];
    const results = await Promise.all(names.map((name) => scaffold({ name, label: `Concurrent ${name}` })));
    for (const result of results) expect(result.isError ?? false, firstText(result)).toBe(false);
    const registry = parse(readFileSync(join(project, 'primitives.yaml'), 'utf8')) as { primitives: Array<{ key: string }> };
    expect(registry.primitives.map((entry) => entry.key)).toEqual(expect.arrayContaining(names));
    expect(registry.primitives).toHaveLength(names.length + 1);
  });

  it('a label with line breaks injects no YAML key', async () => {
    const result = await scaffold({ name: 'nl-label', label: 'Line\nkey: injected' });
    expect(result.isError ?? false, firstText(result)).toBe(false);
    const text = readFileSync(join(project, 'primitives/nl-label/nl-label.contract.yaml'), 'utf8');
    expect(parse(text)).toMatchObject({ key: 'nl-label', label: 'Line\nkey: injected' });
    expect(text.split('\n').filter((line) => line.startsWith('key:'))).toEqual(['key: nl-label']);
  });

  it.each(['../escape', '..', 'a/../../b', '/etc/passwd', 'C:\\x'])('refuses the traversal name %j', async (name) => {
    const result = await scaffold({ name, label: 'Escape' });
    expect(result.isError).toBe(true);
    expect(readdirSync(sandbox)).toEqual(['project']);
  });
});
