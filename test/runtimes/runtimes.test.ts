/**
 * cellgate serves real answers on other runtimes, over each runtime's own HTTP server: Bun
 * (`Bun.serve`), Deno (`Deno.serve`) and workerd (through miniflare) each import the built
 * `dist/index.js`, serve the smoke app of `app.mjs` on 127.0.0.1 (Bun and Deno also behind
 * `toHono`) and print their URLs; this file (Node) calls them with `fetch`. Runtimes come from the
 * dev dependencies (`bun`, `deno`, `miniflare`); miniflare needs Node 22, fetched with
 * `npx -y node@22` as the MCP conformance suite does. A runtime that cannot start here skips with
 * the reason; every server stops when its tests end (or by itself, see `LIFETIME_MS`).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { signDevToken } from 'cellgate';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from '../packaging/build.ts';
import { SMOKE } from './app.mjs';

const run = promisify(execFile);
const bin = (name: string) => join(root, 'node_modules/.bin', name);

/** What a smoke prints once its servers listen. */
interface Served {
  runtime: string;
  /** The smoke handler given to the runtime's server as it is. */
  url: string;
  /** The same handler inside a Hono app through `toHono` (Bun and Deno). */
  hono?: string;
}

/** A running smoke, or why its runtime could not start here. */
type Smoke = { served: Served; child: ChildProcess } | { unavailable: string };

/** How long a smoke may take to print its URLs (bundling and starting workerd is the slowest). */
const START_MS = 90_000;

/** Starts one smoke and resolves once it printed its URLs; rejects with its stderr if it failed. */
function start(command: string, args: string[]): Promise<{ served: Served; child: ChildProcess }> {
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail('did not print its URLs in time'), START_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`${command} ${args.join(' ')} ${why}: ${stderr.slice(-2000)}`));
    };
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code) => fail(`exited (${code}) before serving`));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ served: JSON.parse(line) as Served, child });
    });
  });
}

/** Starts a smoke unless the runtime does not even answer `--version` here. */
async function smoke(command: string, args: string[]): Promise<Smoke> {
  try {
    await run(command, ['--version'], { cwd: root, timeout: 60_000 });
  } catch (error) {
    return { unavailable: `${command} does not start here: ${(error as Error).message.split('\n')[0]}` };
  }
  return start(command, args);
}

/** Stops a smoke's process (SIGTERM; workerd's driver disposes of workerd first). */
async function stop(smoke: Smoke | undefined): Promise<void> {
  if (smoke === undefined || 'unavailable' in smoke || smoke.child.exitCode !== null) return;
  const exited = new Promise((resolve) => smoke.child.once('exit', resolve));
  smoke.child.kill('SIGTERM');
  await exited;
}

const json = (method: string, body: string, headers: Record<string, string> = {}) => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

const manifest = {
  apiVersion: 'platform/v1alpha1',
  kind: 'Cell',
  metadata: { key: 'smoke', name: 'Smoke', version: '1.0.0' },
  spec: { mount: { mountPath: '/', landingPage: 'home' }, pages: [{ key: 'home', type: 'dashboard', title: 'Home', path: '/home' }] },
};

/** An admin token of the smoke's tenant and workspace. */
const authorization = async () => ({
  authorization: `Bearer ${await signDevToken({ secret: SMOKE.secret, tenantId: SMOKE.tenantId, roles: ['admin'], workspaces: { [SMOKE.workspaceId]: ['admin'] } })}`,
});

/** The checks every server of every runtime passes, over HTTP. */
function servesCellgate(base: () => string, runtime: { fileSystem: boolean }): void {
  const collection = () => `${base()}/v1/workspaces/${SMOKE.workspaceId}/notes`;

  it('GET /health answers the JSON of the core', async () => {
    const response = await fetch(`${base()}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('GET /api/primitives lists the 30 core primitives', async () => {
    const primitives = await (await fetch(`${base()}/api/primitives`)).json();
    expect(primitives).toHaveLength(30);
  });

  it(`GET a docs asset answers ${runtime.fileSystem ? 200 : 404}`, async () => {
    const response = await fetch(`${base()}/api/docs/assets/swagger-ui.css`);
    expect(response.status).toBe(runtime.fileSystem ? 200 : 404);
    await response.arrayBuffer();
  });

  it('POST /api/validate/manifest judges a valid and a broken manifest', async () => {
    const valid = await fetch(`${base()}/api/validate/manifest`, json('POST', JSON.stringify({ manifest })));
    expect([valid.status, (await valid.json()).valid]).toEqual([200, true]);
    const broken = await fetch(`${base()}/api/validate/manifest`, json('POST', JSON.stringify({ manifest: { ...manifest, kind: 'Nope' } })));
    expect([broken.status, (await broken.json()).valid]).toEqual([200, false]);
  });

  it('refuses a body that is not JSON with the 400 envelope', async () => {
    const refused = await fetch(`${base()}/api/validate/manifest`, json('POST', '{"manifest":'));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'BAD_REQUEST', message: expect.any(String) });
  });

  it('HEAD /health answers the headers of GET and no body', async () => {
    const get = await fetch(`${base()}/health`);
    await get.arrayBuffer();
    const head = await fetch(`${base()}/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(await head.text()).toBe('');
  });

  it('governed: POST creates a record, GET and HEAD read it back, no token is 401', async () => {
    const auth = await authorization();
    const created = await fetch(collection(), json('POST', JSON.stringify({ title: 'hello' }), auth));
    expect(created.status).toBe(201);
    const { data: note } = await created.json();
    expect(note.title).toBe('hello');
    const read = await fetch(`${collection()}/${note.id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    expect((await read.json()).data).toMatchObject({ id: note.id, title: 'hello' });
    const head = await fetch(`${collection()}/${note.id}`, { method: 'HEAD', headers: auth });
    expect([head.status, head.headers.get('etag'), await head.text()]).toEqual([200, '"1"', '']);
    const anonymous = await fetch(collection());
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error).toBe('UNAUTHENTICATED');
  });

  it('governed: a list page past one batch (about 5 MB) arrives whole, streamed; HEAD has no body', async () => {
    const auth = await authorization();
    const marker = crypto.randomUUID();
    for (let index = 0; index < 10; index += 1) {
      const created = await fetch(collection(), json('POST', JSON.stringify({ title: `${marker}${String(index).repeat(500_000)}` }), auth));
      expect(created.status).toBe(201);
      await created.arrayBuffer();
    }
    const list = await fetch(`${collection()}?pageSize=100`, { headers: auth });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const page = await list.json();
    const mine = page.data.filter((item: { title: string }) => item.title.startsWith(marker));
    expect(mine.map((item: { title: string }) => item.title.length)).toEqual(Array.from({ length: 10 }, () => marker.length + 500_000));
    expect(page.meta.total).toBe(page.data.length);
    const head = await fetch(`${collection()}?pageSize=100`, { method: 'HEAD', headers: auth });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });
}

/** The checks of the Hono app: cellgate's answers through `toHono`, and the fall-through. */
function servesThroughHono(base: () => string): void {
  servesCellgate(base, { fileSystem: true });

  it('toHono lets what cellgate does not own fall through to the Hono app', async () => {
    const own = await fetch(`${base()}/own`);
    expect([own.status, await own.text()]).toEqual([200, 'answered by hono']);
  });
}

beforeAll(ensureBuilt, 300_000);

/** One runtime's block: start its smoke before, stop it after, skip with the reason when it cannot start. */
function runtime(name: string, runtimePattern: RegExp, launch: () => Promise<Smoke>, fileSystem: boolean): void {
  describe(name, () => {
    let current: Smoke | undefined;
    const served = () => {
      if (current === undefined || 'unavailable' in current) throw new Error('not started');
      return current.served;
    };
    beforeAll(async () => {
      current = await launch();
    }, START_MS + 200_000);
    beforeEach((context) => {
      if (current !== undefined && 'unavailable' in current) context.skip(current.unavailable);
    });
    afterAll(() => stop(current));

    it('serves over its own HTTP server', () => {
      expect(served().runtime).toMatch(runtimePattern);
    });
    describe('the handler given to the server', () => servesCellgate(() => served().url, { fileSystem }));
    if (fileSystem) describe('through toHono', () => servesThroughHono(() => served().hono!));
  });
}

runtime('Bun (Bun.serve)', /^bun \d/, () => smoke(bin('bun'), ['test/runtimes/bun.mjs']), true);
runtime('Deno (Deno.serve)', /^deno \d/, () => smoke(bin('deno'), ['run', '--allow-read', '--allow-net=127.0.0.1', 'test/runtimes/deno.mjs']), true);
runtime(
  'workerd (miniflare)',
  /^workerd$/,
  async () => {
    let node22: string;
    try {
      node22 = (await run('npx', ['-y', 'node@22', '-p', 'process.execPath'], { timeout: 180_000 })).stdout.trim();
    } catch (error) {
      return { unavailable: `Node 22 (needed by miniflare 4) could not be fetched: ${(error as Error).message.split('\n')[0]}` };
    }
    return smoke(node22, ['test/runtimes/workerd.mjs']);
  },
  false,
);
