/**
 * NestJS 11 (Express platform): the app of docs/nest.md, its files taken from the guide as they
 * are written there, compiled with the guide's `tsconfig.json` (Nest's starter: `module:
 * commonjs`, so TypeScript resolves cellgate without `exports`) against the packed package, and
 * served on 127.0.0.1. Over HTTP: the host's global guard refuses on cellgate's paths too; the
 * host's middleware header is on cellgate's answers; a governed create works; a JSON body bigger
 * than Nest's parser would take reaches cellgate unparsed (and a malformed one gets cellgate's
 * envelope), while the host's own route still gets parsed JSON; a path cellgate does not own
 * falls through to Nest's 404.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from 'cellgate';
import { codeBlocks } from '../docs/markdown.ts';
import { createApp, packOnce, root, run, startProcess } from '../packaging/pack.ts';

const SECRET = 'a-nest-test-secret-of-at-least-32-bytes';
const API_KEY = 'host-api-key';
const TENANT = '00000000-0000-4000-8000-000000000001';
const WORKSPACE = '00000000-0000-4000-8000-000000000002';
const NEST = ['@nestjs/core', '@nestjs/common', '@nestjs/platform-express', 'reflect-metadata', 'rxjs'];

/** The guide's files: every block with a `file=` attribute, by path. */
const guideFiles = Object.fromEntries(
  codeBlocks('docs/nest.md')
    .filter((block) => block.attrs.file)
    .map((block) => [block.attrs.file!, block.code]),
);

let server: { url: string; stop: () => void } | undefined;
afterAll(() => server?.stop());

describe('NestJS 11 app of docs/nest.md', () => {
  let url = '';
  let token = '';

  beforeAll(async () => {
    await packOnce();
    const app = await createApp({
      type: 'commonjs',
      link: [...NEST, 'express', '@types/express', '@types/node', 'better-sqlite3'],
      files: guideFiles,
    });
    // Nest's starter compiles with tsc; a type error anywhere (cellgate's types not found under
    // module commonjs, before typesVersions) fails here with the compiler's output.
    const compiled = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: app, timeout: 180_000 }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(compiled).toBe('');
    server = await startProcess(['dist/main.js'], {
      cwd: app,
      env: { ...process.env, PORT: '0', API_KEY, CELLGATE_JWT_SECRET: SECRET, CELLGATE_DB: join(app, 'data/app.db'), NO_COLOR: '1' },
      pattern: /listening on (http:\/\/\S+)/,
    });
    url = server.url;
    token = await signDevToken({ secret: SECRET, tenantId: TENANT, workspaces: { [WORKSPACE]: ['editor'] } });
  }, 420_000);

  const key = { 'x-api-key': API_KEY };

  it("the host's guard refuses cellgate's paths without the host's credential, as it refuses the host's own", async () => {
    for (const path of ['/platform/health', `/platform/v1/workspaces/${WORKSPACE}/tasks`, '/hello']) {
      const refused = await fetch(`${url}${path}`, { method: path === '/hello' ? 'POST' : 'GET' });
      expect([path, refused.status]).toEqual([path, 403]);
      expect(await refused.json()).toMatchObject({ statusCode: 403, message: 'Forbidden resource' });
    }
    const health = await fetch(`${url}/platform/health`, { headers: key });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it("the host's middleware runs on cellgate's answers", async () => {
    const answer = await fetch(`${url}/platform/api/primitives`, { headers: key });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-app')).toBe('my-nest-app');
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('a governed create and read work through the controller', async () => {
    const headers = { ...key, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/platform/v1/workspaces/${WORKSPACE}/tasks`, { method: 'POST', headers, body: '{"title":"Ship the Nest guide"}' });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-app')).toBe('my-nest-app');
    const { data } = (await created.json()) as { data: { id: string; title: string } };
    expect(data.title).toBe('Ship the Nest guide');
    const read = await fetch(`${url}/platform/v1/workspaces/${WORKSPACE}/tasks/${data.id}`, { headers });
    expect(read.status).toBe(200);
    // Without cellgate's token, the guard lets the request through and cellgate refuses it itself.
    const anonymous = await fetch(`${url}/platform/v1/workspaces/${WORKSPACE}/tasks`, { headers: key });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'UNAUTHENTICATED' });
  });

  it("JSON bodies reach cellgate unparsed, with cellgate's limit and errors; the host's routes still get parsed JSON", async () => {
    const headers = { ...key, 'content-type': 'application/json' };
    // 300 kB: past express.json()'s 100 kB, within cellgate's 1 MiB. Parsed by Nest first, it would be a 413.
    const description = 'x'.repeat(300_000);
    const big = await fetch(`${url}/platform/api/validate/entity`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ entity: { key: 'task', name: 'Task', description } }),
    });
    expect(big.status).toBe(200);
    expect(await big.json()).toHaveProperty('valid');
    const malformed = await fetch(`${url}/platform/api/validate/entity`, { method: 'POST', headers, body: '{"key": ' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'BAD_REQUEST' });
    const hello = await fetch(`${url}/hello`, { method: 'POST', headers, body: '{"name":"Nest"}' });
    expect(hello.status).toBe(201);
    expect(await hello.json()).toEqual({ hello: 'Nest' });
  });

  it("a path under the prefix that cellgate does not own goes on to Nest's 404", async () => {
    const missing = await fetch(`${url}/platform/not-cellgate`, { headers: key });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ statusCode: 404 });
  });
});
