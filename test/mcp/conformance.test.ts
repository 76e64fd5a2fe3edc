/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) as an outside client
 * against the endpoint over real HTTP, for the scenarios that apply to a server with our tools.
 * The suite needs Node 22, fetched with `npx -y node@22`; the package is installed once into a
 * cache folder under the OS temp dir.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startHost, type TestHost } from './support.ts';

const run = promisify(execFile);
const VERSION = '0.1.16';
const cache = join(tmpdir(), `cellgate-mcp-conformance-${VERSION}`);
const cli = join(cache, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'];

let host: TestHost;
let node22 = '';
let unavailable: string | undefined;

beforeAll(async () => {
  host = await startHost();
  try {
    if (!existsSync(cli)) {
      mkdirSync(cache, { recursive: true });
      await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', cache, `@modelcontextprotocol/conformance@${VERSION}`], {
        timeout: 180_000,
      });
    }
    // Resolve the Node 22 binary once instead of paying npx for every scenario.
    node22 = (await run('npx', ['-y', 'node@22', '-p', 'process.execPath'], { timeout: 180_000 })).stdout.trim();
  } catch (error) {
    unavailable = `cannot fetch the conformance suite or Node 22: ${(error as Error).message.split('\n')[0]}`;
  }
}, 400_000);

afterAll(async () => {
  await host?.stop();
});

describe('MCP conformance suite', () => {
  it.concurrent.for(SCENARIOS)('scenario %s has no FAILURE', { timeout: 120_000 }, async (scenario, context) => {
    // reason: the suite and Node 22 come from the npm registry; without network they cannot run.
    if (unavailable) context.skip(unavailable);
    const { stdout, stderr } = await run(node22, [cli, 'server', '--url', host.mcpUrl, '--scenario', scenario], { timeout: 100_000 }).catch(
      (error: { stdout?: string; stderr?: string; message: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? error.message }),
    );
    const output = `${stdout}\n${stderr}`;
    context.expect(output, output).not.toMatch(/FAILURE|[1-9]\d* failed/);
    context.expect(output, output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
  });
});
