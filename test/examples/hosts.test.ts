/**
 * Starts each framework host as its own process (`npx tsx examples/<host>/main.ts`, PORT=0,
 * DATABASE_URL=memory:), waits for `listening on http://…`, runs the host's smoke script against
 * it, then stops it with SIGTERM and expects a clean exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;
const SECRET = 'example-hosts-secret-0123456789abcdef01';

/** Starts a host; resolves with its URL once it printed the listening line. */
export async function startHost(entry: string, env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn(tsx, [entry], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'memory:', CELLGATE_JWT_SECRET: SECRET, NEXT_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before listening:\n${output}`)));
  });
  return { url, child, output: () => output };
}

/** Runs a smoke script against `url`; resolves with its exit code and output. */
export async function runSmoke(script: string, url: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(tsx, [script, url], { cwd: root, env: { ...process.env, CELLGATE_JWT_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

describe.concurrent.each(['express', 'fastify', 'hono', 'next'])('examples/%s-host', (name) => {
  it('starts, passes its smoke check, serves its own route, and stops cleanly on SIGTERM', async () => {
    const host = await startHost(`examples/${name}-host/main.ts`);
    try {
      const smoke = await runSmoke(`examples/${name}-host/smoke.ts`, host.url);
      expect(smoke.output).toContain('ok  governed create 201');
      expect(smoke.code, smoke.output).toBe(0);
      expect(await (await fetch(`${host.url}/hello`)).json()).toEqual({ from: name });
      if (name === 'express') {
        // The smoke script is shared; proving once that it fails on wrong answers is enough.
        const wrong = await runSmoke(`examples/${name}-host/smoke.ts`, `${host.url}/not-the-root`);
        expect(wrong.code).toBe(1);
      }
    } finally {
      host.child.kill('SIGTERM');
    }
    const [code] = (await once(host.child, 'exit')) as [number | null];
    expect(code, host.output()).toBe(0);
    expect(host.output()).toContain('stopped');
  }, 600_000); // next-host builds its app on first start (cached in examples/next-host/.next)
});
