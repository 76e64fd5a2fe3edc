/**
 * One server of the adapter benchmark, in its own process: `<framework> <native|adapter>`.
 * `adapter` mounts the contract handler plus a governed resource through the framework's cellgate
 * adapter; `native` answers the same bytes (captured from that handler at start) from a route of
 * the framework itself. Prints `listening on <url>` and, on stdin close, nothing else: the parent
 * reads CPU time from /proc.
 *
 * Usage: node <bundle> node|express|fastify|hono native|adapter (node also: bridge)
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { composeHandlers, createContractHandler, createFetchHandler, type FetchHandler } from 'cellgate';
import { toExpress } from 'cellgate/adapters/express';
import { cellgatePlugin } from 'cellgate/adapters/fastify';
import { toHono } from 'cellgate/adapters/hono';
import { toNodeHandler } from 'cellgate/adapters/node';
import { createGovernedFixture } from '../../src/testing/adapter-conformance-governed.ts';

const [framework = 'node', mode = 'native'] = process.argv.slice(2);
const JSON_TYPE = 'application/json; charset=utf-8';

const governed = await createGovernedFixture();
const handler: FetchHandler = composeHandlers(createContractHandler(), governed.handler);
const primitives = Buffer.from(await (await handler(new Request('http://x/api/primitives'))).arrayBuffer());
// One record per benchmark connection, so PATCHes with If-Match never conflict.
const records: Array<{ id: string; etag: string }> = [];
for (let i = 0; i < 64; i++) {
  const created = await handler(
    new Request(`http://x${governed.collection}`, { method: 'POST', headers: { ...governed.auth, 'content-type': 'application/json' }, body: '{"title":"bench"}' }),
  );
  records.push({ id: ((await created.json()) as { data: { id: string } }).data.id, etag: created.headers.get('etag')! });
}
const first = records[0]!;
const patched = await handler(
  new Request(`http://x${governed.collection}/${first.id}`, {
    method: 'PATCH',
    headers: { ...governed.auth, 'content-type': 'application/json', 'if-match': first.etag },
    body: '{"title":"patched"}',
  }),
);
first.etag = patched.headers.get('etag')!;
const patchBytes = Buffer.from(await patched.arrayBuffer());

function nativeBody(method: string | undefined, url: string | undefined): Buffer | undefined {
  if (method === 'GET' && url === '/api/primitives') return primitives;
  if (method === 'PATCH' && url?.startsWith(`${governed.collection}/`)) return patchBytes;
  return undefined;
}

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function serve(): Promise<string> {
  const native = mode === 'native';
  if (framework === 'node') {
    if (mode === 'bridge') {
      // The adapter alone: toNodeHandler around a handler that does no work and hands back one
      // prebuilt Response per endpoint (the adapter writes its in-memory body without reading the
      // stream, so it can be sent again). This leaves out the per-request \`new Response()\` that
      // every Fetch handler pays (~40 µs on Node 20: a ReadableStream per body).
      const prebuilt = (bytes: Buffer) => new Response(new Uint8Array(bytes), { headers: { 'content-type': JSON_TYPE } });
      const answers = { get: prebuilt(primitives), patch: prebuilt(patchBytes) };
      return listen(
        toNodeHandler(
          createFetchHandler(async (request) => {
            if (request.method === 'GET' && new URL(request.url).pathname === '/api/primitives') return answers.get;
            if (request.method !== 'PATCH') return undefined;
            if (request.body) await new Response(request.body).arrayBuffer();
            return answers.patch;
          }),
        ),
      );
    }
    if (!native) return listen(toNodeHandler(handler));
    return listen((req, res) => {
      const body = nativeBody(req.method, req.url);
      if (!body) return void res.writeHead(404).end();
      // Drain a request body like the adapter's core does, then answer.
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': body.length }).end(body));
    });
  }
  if (framework === 'express') {
    const app = express();
    if (native) {
      app.get('/api/primitives', (_req, res) => void res.type(JSON_TYPE).send(primitives));
      app.patch(`${governed.collection}/:id`, express.raw({ type: '*/*' }), (_req, res) => void res.type(JSON_TYPE).send(patchBytes));
    } else app.use(toExpress(handler));
    return listen(app);
  }
  if (framework === 'fastify') {
    const app = Fastify();
    if (native) {
      app.get('/api/primitives', async (_request, reply) => reply.type(JSON_TYPE).send(primitives));
      app.patch(`${governed.collection}/:id`, async (_request, reply) => reply.type(JSON_TYPE).send(patchBytes));
    } else await app.register(cellgatePlugin, { handler });
    return app.listen({ port: 0, host: '127.0.0.1' });
  }
  const app = new Hono();
  if (native) {
    app.get('/api/primitives', (c) => c.body(new Uint8Array(primitives), 200, { 'content-type': JSON_TYPE }));
    app.patch(`${governed.collection}/:id`, async (c) => {
      await c.req.arrayBuffer();
      return c.body(new Uint8Array(patchBytes), 200, { 'content-type': JSON_TYPE });
    });
  } else app.use('*', toHono(handler));
  return listen(getRequestListener(app.fetch));
}

const url = await serve();
console.log(JSON.stringify({ url, collection: governed.collection, auth: governed.auth, records }));
console.log(`listening on ${url}`);
process.once('SIGINT', () => process.exit(0));
