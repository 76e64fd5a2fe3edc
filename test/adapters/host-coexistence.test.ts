/**
 * cellgate next to a host's own routes and middleware, as a newcomer mounts it: Express with
 * `express.json()` in front, Fastify with its own `GET /` and `/*` fallback, Hono with a
 * body-reading validator, and every adapter mounted under a prefix the handler was not told about.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { composeHandlers, createContractHandler, type FetchHandler } from 'cellgate';
import { toExpress } from 'cellgate/adapters/express';
import { cellgatePlugin } from 'cellgate/adapters/fastify';
import { toHono } from 'cellgate/adapters/hono';
import type { AdapterServer } from 'cellgate/testing';
import { listen } from './support.ts';

const open: AdapterServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
  vi.restoreAllMocks();
});
async function track(server: Promise<AdapterServer>): Promise<string> {
  const started = await server;
  open.push(started);
  return started.url;
}

const entityBody = JSON.stringify({
  entity: { key: 'customer', name: 'Customer', pluralName: 'Customers', fields: [{ key: 'name', type: 'string', name: 'Name' }] },
});
const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
/** A manifest body of about `bytes` bytes (valid JSON, an invalid manifest: the answer is 200). */
const bigBody = (bytes: number) => JSON.stringify({ manifest: { pad: 'x'.repeat(bytes) } });

describe("the host's own /health", () => {
  it("stays the host's with health: false, in front of every route of the host, and leaves the OpenAPI document", async () => {
    const app = express();
    app.use(toExpress(createContractHandler({ health: false })));
    app.get('/health', (_req, res) => {
      res.json({ host: 'up' });
    });
    const url = await track(listen(createServer(app)));
    expect(await fetch(`${url}/health`).then((r) => r.json())).toEqual({ host: 'up' });
    const openapi = (await fetch(`${url}/api/openapi.json`).then((r) => r.json())) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).not.toContain('/health');
    expect(Object.keys(openapi.paths)).toContain('/api/validate/manifest');
    expect((await fetch(`${url}/api/primitives`)).status).toBe(200);
    // By default the handler answers /health itself, ahead of the host's route.
    const shadowing = express();
    shadowing.use(toExpress(createContractHandler()));
    shadowing.get('/health', (_req, res) => {
      res.json({ host: 'up' });
    });
    const other = await track(listen(createServer(shadowing)));
    expect(await fetch(`${other}/health`).then((r) => r.json())).toEqual({ status: 'ok' });
  });
});

describe('Express with express.json() in front of toExpress', () => {
  const start = () => {
    const app = express();
    app.use(express.json()); // the default 100 kB limit
    app.post('/host/echo', (req, res) => {
      res.json({ host: req.body });
    });
    app.use(toExpress(createContractHandler()));
    return track(listen(createServer(app)));
  };

  it('answers bad JSON on cellgate paths with the envelope, not an HTML page with a stack', async () => {
    const url = await start();
    const response = await post(`${url}/api/validate/entity`, '{"entity": ');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({ error: 'BAD_REQUEST' });
    expect(body).not.toMatch(/at .*\.js:\d+/);
  });

  it('answers a body over the parser limit with the envelope 413 naming the fix', async () => {
    const url = await start();
    const response = await post(`${url}/api/validate/manifest`, bigBody(200_000));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/before express\.json\(\)/) });
  });

  it("leaves the host's own paths to Express's error handling and parsing", async () => {
    const url = await start();
    expect(await post(`${url}/host/echo`, '{"a":1}').then((r) => r.json())).toEqual({ host: { a: 1 } });
    const bad = await post(`${url}/host/echo`, '{"a": ');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('in the documented order (toExpress first) the core applies its own limit to a 200 KB body', async () => {
    const app = express();
    app.use(toExpress(createContractHandler()));
    app.use(express.json());
    const url = await track(listen(createServer(app)));
    const response = await post(`${url}/api/validate/manifest`, bigBody(200_000));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ valid: false });
  });
});

describe('Fastify next to the host’s own GET / and /* fallback', () => {
  const build = async (order: 'plugin-first' | 'host-first'): Promise<FastifyInstance> => {
    const app = Fastify({ logger: false });
    const host = () => {
      app.get('/', async () => ({ host: 'root' }));
      app.all('/*', async (_request, reply) => reply.code(404).send({ host: 'fallback' }));
    };
    if (order === 'host-first') host();
    await app.register(cellgatePlugin, { handler: createContractHandler() });
    if (order === 'plugin-first') host();
    return app;
  };

  it.each(['plugin-first', 'host-first'] as const)('starts and routes both sides (%s)', async (order) => {
    const app = await build(order);
    const url = await track(app.listen({ port: 0, host: '127.0.0.1' }).then((address) => ({ url: address, close: () => app.close() })));
    expect(await fetch(`${url}/`).then((r) => r.json())).toEqual({ host: 'root' });
    expect(await fetch(`${url}/nowhere`).then((r) => r.json())).toEqual({ host: 'fallback' });
    expect(await fetch(`${url}/health`).then((r) => r.json())).toEqual({ status: 'ok' });
    const validated = await post(`${url}/api/validate/entity`, entityBody);
    expect([validated.status, (await validated.json()).valid]).toEqual([200, true]);
  });

  it('answers HEAD with the length of GET', async () => {
    const app = await build('host-first');
    const url = await track(app.listen({ port: 0, host: '127.0.0.1' }).then((address) => ({ url: address, close: () => app.close() })));
    const get = await fetch(`${url}/api/primitives`);
    const length = (await get.arrayBuffer()).byteLength;
    const head = await fetch(`${url}/api/primitives`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(length));
    expect(length).toBeGreaterThan(100);
  });
});

describe('Hono with a body-reading middleware before toHono', () => {
  const start = async (handler: FetchHandler, onError?: (error: unknown) => void) => {
    const app = new Hono();
    app.use('*', async (c, next) => {
      if (c.req.method === 'POST') await c.req.json(); // what validators do
      await next();
    });
    app.use('*', toHono(handler));
    if (onError) app.onError((error, c) => (onError(error), c.json({ host: 'onError' }, 500)));
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    return track(Promise.resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }));
  };

  it('cellgate POSTs use the body Hono cached', async () => {
    const url = await start(createContractHandler());
    const response = await post(`${url}/api/validate/entity`, entityBody);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ valid: true });
  });

  it('an adapter failure reaches app.onError; without one, Hono answers the envelope 500', async () => {
    const broken = composeHandlers({ match: () => Promise.reject(new Error('broken handler')) });
    const seen: unknown[] = [];
    const url = await start(broken, (error) => seen.push(error));
    expect(await fetch(`${url}/health`).then((r) => r.json())).toEqual({ host: 'onError' });
    expect((seen[0] as Error & { cause?: Error }).cause?.message).toBe('broken handler');

    const bare = await start(broken);
    const response = await fetch(`${bare}/health`);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: 'INTERNAL_ERROR' });
  });
});

describe('a prefix the handler was not given', () => {
  const hinted = () => vi.spyOn(console, 'warn').mockImplementation(() => undefined);

  it('Express learns it from req.baseUrl and warns once', async () => {
    const warn = hinted();
    const app = express();
    app.use('/platform', toExpress(createContractHandler()));
    const url = await track(listen(createServer(app)));
    expect(await fetch(`${url}/platform/health`).then((r) => r.json())).toEqual({ status: 'ok' });
    expect(await fetch(`${url}/platform/api/primitives/input`).then((r) => r.status)).toBe(200);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/basePath: '\/platform'/);
    expect((await fetch(`${url}/health`)).status).toBe(404);
  });

  it('Express with the matching basePath does not warn', async () => {
    const warn = hinted();
    const app = express();
    app.use('/platform', toExpress(createContractHandler({ basePath: '/platform' })));
    const url = await track(listen(createServer(app)));
    expect(await fetch(`${url}/platform/health`).then((r) => r.json())).toEqual({ status: 'ok' });
    expect(warn).not.toHaveBeenCalled();
  });

  it('Fastify learns it from the register prefix, and serves nothing outside it', async () => {
    const warn = hinted();
    const app = Fastify({ logger: false });
    await app.register(cellgatePlugin, { handler: createContractHandler(), prefix: '/platform' });
    const url = await track(app.listen({ port: 0, host: '127.0.0.1' }).then((address) => ({ url: address, close: () => app.close() })));
    expect(await fetch(`${url}/platform/health`).then((r) => r.json())).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/health`)).status).toBe(404);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('Hono learns it from the route path', async () => {
    const warn = hinted();
    const app = new Hono();
    app.use('/platform/*', toHono(createContractHandler()));
    const response = await app.request('http://localhost/platform/health');
    expect(await response.json()).toEqual({ status: 'ok' });
    const routed = new Hono().basePath('/v2');
    routed.use('*', toHono(createContractHandler()));
    expect(await (await routed.request('http://localhost/v2/health')).json()).toEqual({ status: 'ok' });
    expect(warn).toHaveBeenCalledTimes(2); // once per adapter instance
  });
});
