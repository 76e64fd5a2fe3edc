/** `cellgate serve --framework …`: picks the framework host; bad values are a one-line usage error. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startHost } from './support.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(`${root}node_modules/.bin/tsx`, ['src/cli/index.ts', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

describe('cellgate serve --framework', () => {
  it('refuses an unknown framework with one line and exit code 2', async () => {
    const result = await cli(['serve', '--framework', 'koa']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--framework must be one of node, express, fastify, hono, next');
  });

  it('documents the option in --help', async () => {
    const result = await cli(['serve', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--framework <name>');
  });

  it('serves the reference app on the chosen framework', async () => {
    const host = await startHost('src/cli/index.ts', {}, ['serve', '--framework', 'fastify', '--port', '0', '--database-url', 'memory:']);
    try {
      expect(await (await fetch(`${host.url}/hello`)).json()).toEqual({ from: 'fastify' });
      expect((await fetch(`${host.url}/health`)).status).toBe(200);
    } finally {
      host.child.kill('SIGTERM');
    }
    const [code] = (await once(host.child, 'exit')) as [number | null];
    expect(code, host.output()).toBe(0);
  }, 60_000);
});
