/** `cellgate serve`: the same reference host as `npm start`, flags over the environment. */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const TSX = resolve(root, 'node_modules/.bin/tsx');

function cellgate(args: string[], env: Record<string, string> = {}) {
  const child = spawn(TSX, ['src/cli/index.ts', ...args], { cwd: root, env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  return { child, exited, out: () => out, err: () => err };
}

describe('cellgate serve', () => {
  it('--help prints the options and exits 0', async () => {
    const run = cellgate(['serve', '--help']);
    expect(await run.exited).toBe(0);
    expect(run.out()).toContain('Usage: cellgate serve');
    expect(run.out()).toContain('--port');
  }, 60_000);

  it('serves the reference host on --port 0 and stops on SIGTERM with 0', async () => {
    const run = cellgate(['serve', '--port', '0', '--database-url', 'memory:'], { PORT: '1' });
    await expect.poll(run.out, { timeout: 30_000, interval: 100 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const url = /listening on (http:\/\/\S+)/.exec(run.out())![1]!;
    expect(await fetch(`${url}/health`).then((r) => r.json())).toEqual({ status: 'ok' });
    expect(await fetch(`${url}/api/primitives`).then((r) => r.json())).toHaveLength(30);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }, 60_000);

  it('exits 2 with one line for a bad flag value or an unknown flag (docs/cli.md)', async () => {
    const bad = cellgate(['serve', '--port', 'x'], { DATABASE_URL: 'memory:' });
    expect(await bad.exited).toBe(2);
    expect(bad.err().trim().split('\n')).toEqual([expect.stringContaining('--port')]);
    const unknown = cellgate(['serve', '--prot', '1']);
    expect(await unknown.exited).toBe(2);
  }, 60_000);
});
