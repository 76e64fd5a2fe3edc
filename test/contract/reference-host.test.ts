/**
 * The reference host over real HTTP: started as a child process the way `npm start` does
 * (`tsx examples/reference-host/main.ts`) on port 0 with in-memory storage, driven with fetch,
 * then stopped with SIGTERM. The tsx binary is spawned directly, not through `npx`: npx does not
 * forward SIGTERM, which would leave the host running after the test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

interface Host {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startHost(env: Record<string, string>): Promise<Host> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/reference-host/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return new Promise((resolveHost, reject) => {
    const timer = setTimeout(() => reject(new Error(`host did not start:\n${out}\n${err}`)), 60_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolveHost({ child, url: match[1]!, stdout: () => out, stderr: () => err, exited });
      }
    };
    child.stdout.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`host exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
}

describe('reference host over HTTP', () => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'memory:' });
  }, 90_000);
  afterAll(() => {
    if (host && host.child.exitCode === null) host.child.kill('SIGKILL');
  });

  it('prints the URL it listens on (127.0.0.1, a chosen port), then the banner', async () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(host.url).not.toMatch(/:0$/);
    // The banner lines follow the URL line; they may arrive in a later chunk.
    await expect.poll(() => host.stdout(), { timeout: 5_000 }).toContain('/api/docs');
    await expect.poll(() => host.stdout(), { timeout: 5_000 }).toContain('storage');
  });

  it('answers the main contract paths', async () => {
    expect(await fetch(`${host.url}/health`).then((r) => r.json())).toEqual({ status: 'ok' });
    const primitives = await fetch(`${host.url}/api/primitives`);
    expect(primitives.status).toBe(200);
    expect(primitives.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await primitives.json()).toHaveLength(30);
    const crm = await fetch(`${host.url}/api/examples/crm-manifest`).then((r) => r.json());
    const validation = await fetch(`${host.url}/api/validate/manifest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ manifest: crm }),
    });
    expect(await validation.json()).toEqual({ valid: true, errors: [] });
    expect((await fetch(`${host.url}/api/examples/entities%2Fcustomer.entity`)).status).toBe(200);
    expect((await fetch(`${host.url}/api/docs`)).headers.get('content-type')).toMatch(/^text\/html/);
    const openapi = await fetch(`${host.url}/api/openapi.json`).then((r) => r.json());
    expect(openapi.openapi).toBe('3.1.0');
  });

  it('answers bad input with the envelope over the wire', async () => {
    const malformed = await fetch(`${host.url}/api/validate/manifest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toBe('BAD_REQUEST');
    const big = await fetch(`${host.url}/api/validate/manifest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(big.status).toBe(413);
    const wrong = await fetch(`${host.url}/api/primitives`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const missing = await fetch(`${host.url}/nowhere`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toBe('NOT_FOUND');
  });

  it('serves MCP tools/list at /mcp', async () => {
    const response = await fetch(`${host.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('normalize_manifest');
  });

  it('stops cleanly on SIGTERM with exit code 0', async () => {
    host.child.kill('SIGTERM');
    expect(await host.exited).toBe(0);
    expect(host.stdout()).toContain('stopped');
  });
});

describe('reference host shutdown', () => {
  it('finishes a request in flight when SIGTERM arrives, refuses new connections, then exits 0', async () => {
    const host = await startHost({ PORT: '0', DATABASE_URL: 'memory:' });
    try {
      const body = JSON.stringify({ manifest: { apiVersion: 'platform/v1alpha1' } });
      const half = Math.floor(body.length / 2);
      const answer = new Promise<{ status: number; text: string }>((done, fail) => {
        const req = httpRequest(
          `${host.url}/api/validate/manifest`,
          { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => done({ status: res.statusCode!, text }));
          },
        );
        req.on('error', fail);
        req.write(body.slice(0, half));
        // The rest of the body arrives only after the host has started shutting down.
        void expect
          .poll(host.stdout, { timeout: 10_000, interval: 50 })
          .toContain('SIGTERM')
          .then(() => req.end(body.slice(half)), fail);
      });
      // Give the server time to receive the headers, so the request is in flight.
      await new Promise((done) => setTimeout(done, 300));
      host.child.kill('SIGTERM');
      const { status, text } = await answer;
      expect(status).toBe(200);
      expect(JSON.parse(text).valid).toBe(false);
      expect(await host.exited).toBe(0);
      await expect(fetch(`${host.url}/health`)).rejects.toThrow();
    } finally {
      if (host.child.exitCode === null) host.child.kill('SIGKILL');
    }
  }, 90_000);
});

describe('reference host settings', () => {
  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ HOST: 'http://x' }, 'HOST'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ CELLGATE_JWT_SECRET: 'short' }, 'CELLGATE_JWT_SECRET'],
  ])(
    'exits 1 with a one-line reason for %j',
    async (env, name) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'examples/reference-host/main.ts'], {
        cwd: root,
        env: { ...process.env, PORT: '0', DATABASE_URL: 'memory:', ...env },
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((done) => child.once('exit', done));
      expect(code).toBe(1);
      const lines = err.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(name);
    },
    60_000,
  );
});
