/**
 * `npm start` runs the reference host through tsx, whose transform keeps function names by calling
 * `Object.defineProperty(fn, 'name', …)` each time a named function value is created. Done per
 * request (a `const f = () => …` or an arrow-valued member inside a hot function), that call also
 * leaves the closure a slow dictionary-mode object: six of them cost the host about 13 µs of its
 * ~110 µs per manifest validation (docs/benchmarks.md). This drives the host's main request kinds on
 * the memory and SQLite drivers and asserts that, once warm, none of them renames a function.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getExample } from 'cellgate';
import { afterAll, describe, expect, it } from 'vitest';
import { customer, ids, mint, paths, SECRET } from '../governed/support.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const preload = new URL('./fixtures/count-renames.mjs', import.meta.url).href;
const folder = mkdtempSync(join(tmpdir(), 'cellgate-renames-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface CountingProcess {
  url: string;
  /** Renames since the previous call, by site (the first call starts counting and returns `{}`). */
  renames(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** Runs `script` with tsx and the counting preload (as `npm start` runs the host, plus the counter). */
async function startCounting(script: string, log: string, env: Record<string, string> = {}): Promise<CountingProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', preload, '--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, ...env, CELLGATE_TEST_RENAME_LOG: log },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`reference host exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    async renames() {
      rmSync(log, { force: true });
      child.kill('SIGUSR2');
      for (let waited = 0; !existsSync(log); waited += 20) {
        if (waited > 5_000) throw new Error('the host did not report its renames');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Written in one call; read once it parses.
      for (;;) {
        try {
          return JSON.parse(readFileSync(log, 'utf8')) as Record<string, number>;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const json = { 'content-type': 'application/json' };
const mcpAccept = { ...json, accept: 'application/json, text/event-stream' };
const manifest = getExample('crm-manifest') as { spec: { mount: { mountPath: string } } };
const validBody = JSON.stringify({ manifest });
const invalidBody = JSON.stringify({ manifest: { ...manifest, spec: { ...manifest.spec, mount: { ...manifest.spec.mount, mountPath: 'crm' } } } });
const meta2026 = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** Each request kind, as a function that sends one request and returns its status. */
function requestKinds(url: string, token: string, record: { url: string; version: number }): Record<string, () => Promise<number>> {
  const auth = { authorization: `Bearer ${token}` };
  const send = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${path.startsWith('http') ? '' : url}${path}`, init);
    await response.arrayBuffer();
    return response.status;
  };
  const created: string[] = [];
  let keys = 0;
  return {
    'POST /api/validate/manifest': () => send('/api/validate/manifest', { method: 'POST', headers: json, body: validBody }),
    'POST /api/validate/manifest (rule errors)': () => send('/api/validate/manifest', { method: 'POST', headers: json, body: invalidBody }),
    'POST /api/validate/page': () =>
      send('/api/validate/page', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ page: { key: 'home', type: 'dashboard', title: 'Home', path: '/' } }),
      }),
    'GET /api/schemas/manifest': () => send('/api/schemas/manifest'),
    'MCP 2025-11-25 tools/call': () =>
      send('/mcp', {
        method: 'POST',
        headers: mcpAccept,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest } } }),
      }),
    'MCP 2026-07-28 tools/call': () =>
      send('/mcp', {
        method: 'POST',
        headers: { ...mcpAccept, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'validate_manifest' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_manifest', arguments: { manifest }, _meta: meta2026 } }),
      }),
    'POST a record': async () => {
      const response = await fetch(`${url}${paths.customers()}`, { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify(customer()) });
      const answer = (await response.json()) as { data: { id: string } };
      created.push(answer.data.id);
      return response.status;
    },
    'GET a record': () => send(record.url, { headers: auth }),
    'GET a filtered, sorted list': () => send(`${paths.customers()}?status=lead&sortBy=name&pageSize=5`, { headers: auth }),
    'PATCH a record': () =>
      send(record.url, {
        method: 'PATCH',
        headers: { ...auth, ...json, 'if-match': `"${record.version++}"` },
        body: JSON.stringify({ notes: `n${record.version}` }),
      }),
    'GET versions': () => send(`${record.url}/versions`, { headers: auth }),
    'POST rollback': () =>
      send(`${record.url}/rollback`, {
        method: 'POST',
        headers: { ...auth, ...json },
        body: JSON.stringify({ targetVersion: 1, expectedVersion: record.version++ }),
      }),
    'DELETE a record': () => send(`${paths.customers()}/${created.pop()}`, { method: 'DELETE', headers: { ...auth, 'if-match': '"1"' } }),
    'GET /v1/audit': () => send(`/v1/audit?resourceId=${ids.ws}`, { headers: auth }),
    'GET /v1/events': () => send('/v1/events?limit=5', { headers: auth }),
    'GET /v1/audit as NDJSON (streamed)': () =>
      send('/v1/audit?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z', { headers: { ...auth, accept: 'application/x-ndjson' } }),
    'POST with an Idempotency-Key': () =>
      send(paths.customers(), { method: 'POST', headers: { ...auth, ...json, 'idempotency-key': `key-${keys++}` }, body: JSON.stringify(customer()) }),
    'GET with a bad token': () => send(record.url, { headers: { authorization: 'Bearer x.y.z' } }),
    'POST an invalid record': () =>
      send(paths.customers(), { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify({ ...customer(), extra: 1, status: 9 }) }),
  };
}

describe('npm start (tsx): a warm request renames no function', () => {
  for (const database of ['memory:', 'sqlite']) {
    it(`on ${database}`, async () => {
      const host = await startCounting('examples/reference-host/main.ts', join(folder, `${database.replace(':', '')}.json`), {
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: database === 'sqlite' ? `sqlite:${join(folder, 'host.db')}` : database,
        CELLGATE_JWT_SECRET: SECRET,
      });
      try {
        const token = await mint({ roles: ['admin'], permissions: ['audit:read', 'audit:restore'] });
        const created = await fetch(`${host.url}${paths.customers()}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, ...json },
          body: JSON.stringify(customer()),
        });
        const record = { url: created.headers.get('location')!, version: 1 };
        const kinds = requestKinds(host.url, token, record);
        const rounds = 3;
        // Warm-up: the first requests of a kind build caches and compile what they need once.
        for (const send of Object.values(kinds)) for (let i = 0; i < rounds; i++) await send();
        await host.renames();
        const statuses: Record<string, number[]> = {};
        for (const [kind, send] of Object.entries(kinds)) for (let i = 0; i < rounds; i++) (statuses[kind] ??= []).push(await send());
        const renames = await host.renames();
        // The kinds answered as intended, so the requests went through the paths named.
        expect(statuses).toEqual({
          ...Object.fromEntries(Object.keys(kinds).map((kind) => [kind, [200, 200, 200]])),
          'POST a record': [201, 201, 201],
          'POST with an Idempotency-Key': [201, 201, 201],
          'GET with a bad token': [401, 401, 401],
          'POST an invalid record': [400, 400, 400],
        });
        expect(renames).toEqual({});
      } finally {
        await host.stop();
      }
    }, 60_000);
  }

  it('the counter sees a closure named per request', async () => {
    const server = await startCounting('test/examples/fixtures/renaming-server.ts', join(folder, 'probe.json'));
    try {
      await fetch(server.url).then((response) => response.text());
      await server.renames();
      for (let i = 0; i < 3; i++) expect(await fetch(server.url).then((response) => response.text())).toBe('GET /');
      const renames = await server.renames();
      expect(Object.keys(renames)).toHaveLength(1);
      expect(Object.keys(renames)[0]).toMatch(/^answer .*renaming-server\.ts/);
      expect(Object.values(renames)).toEqual([3]);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
