/**
 * The done-criterion of the MCP issue: an SDK client pointed at the reference host
 * (`npx tsx examples/reference-host/main.ts`, PORT=0, in-memory storage) sees and uses all 19
 * tools and 5 resources.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient } from './support.ts';

const root = resolve(import.meta.dirname, '../..');
let child: ChildProcess;
let client: Client;
let base: string;

beforeAll(async () => {
  child = spawn(join(root, 'node_modules/.bin/tsx'), ['examples/reference-host/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'memory:' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await new Promise<string>((resolveUrl, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`reference host did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!.replace(/\/$/, ''));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`reference host exited with ${code}:\n${output}`)));
  });
  client = await connectClient(`${base}/mcp`);
}, 90_000);

afterAll(async () => {
  await client?.close();
  if (child && child.exitCode === null) {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
});

describe('MCP on the reference host', () => {
  it('lists 19 tools and 5 resources and answers a tool and a resource', async () => {
    expect((await client.listTools()).tools).toHaveLength(19);
    expect((await client.listResources()).resources).toHaveLength(5);
    const result = (await client.callTool({ name: 'recommend_manifest_structure', arguments: { goal: 'a CRM for a sales team' } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ matchedDomain: 'crm' });
    const doc = await client.readResource({ uri: 'platform://docs/manifest-format' });
    expect((doc.contents[0] as { text: string }).text).toMatch(/^# CellManifestV1/);
  });
});
