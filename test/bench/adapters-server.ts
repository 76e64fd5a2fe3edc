/**
 * One server of the adapter benchmark, in its own process: `<framework> <native|adapter>`.
 * `adapter` mounts the contract handler plus a governed resource through the framework's cellgate
 * adapter; `native` does the same work from routes of the framework itself:
 *
 * - `GET /api/primitives` writes the catalog bytes (captured from the handler at start), which is
 *   all the work there is for a cached answer;
 * - `PATCH <collection>/:id` does what a team would write by hand with the framework and the
 *   programmatic API: the framework parses the JSON body, jose verifies the bearer token,
 *   `claimsToActor`, `service.update` with If-Match, and the record is sent with its ETag and
 *   correlation id. So the PATCH ratio is the cost of the adapter and the core's HTTP layer, not of
 *   the governed work itself (which both sides do).
 *
 * Prints `listening on <url>`; the parent reads CPU time from /proc.
 *
 * Next: one build of `next-app/` (built by the parent) serves both sides; the native routes live
 * under `/native`, and the first line tells the parent that prefix.
 *
 * Usage: node <bundle> node|express|fastify|hono|next native|adapter (node also: bridge)
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { jwtVerify } from 'jose';
import { composeHandlers, createContractHandler, createFetchHandler, type Actor, type FetchHandler } from 'cellgate';
import { claimsToActor } from '../../src/governed/auth/claims.ts';
import { lightResponse } from 'cellgate/adapter-kit';
import { toExpress } from 'cellgate/adapters/express';
import { cellgatePlugin } from 'cellgate/adapters/fastify';
import { toHono } from 'cellgate/adapters/hono';
import { toNodeHandler } from 'cellgate/adapters/node';
import { createGovernedFixture } from '../../src/testing/adapter-conformance-governed.ts';
import { BENCH_SLOT, type BenchSlot } from './next-app/slot.ts';

const [framework = 'node', mode = 'native'] = process.argv.slice(2);
const JSON_TYPE = 'application/json; charset=utf-8';

const governed = await createGovernedFixture();
const handler: FetchHandler = composeHandlers(createContractHandler(), governed.handler);
const primitives = Buffer.from(await (await handler(new Request('http://x/api/primitives'))).arrayBuffer());
// One record per benchmark connection, so PATCHes with If-Match never conflict.
const records: Array<{ id: string; etag: string }> = [];
for (let i = 0; i < 64; i++) {
  const created = await handler(
    new Request(`http://x${governed.collection}`, {
      method: 'POST',
      headers: { ...governed.auth, 'content-type': 'application/json' },
      body: '{"title":"bench"}',
    }),
  );
  records.push({ id: ((await created.json()) as { data: { id: string } }).data.id, etag: created.headers.get('etag')! });
}
const secretKey = new TextEncoder().encode(governed.secret);
const itemPath = new RegExp(`^${governed.collection}/([0-9a-f-]{36})$`);

/** The governed PATCH written by hand: verify, update through the service, serialise. */
async function patchNatively(
  id: string,
  body: unknown,
  headers: { authorization?: string | undefined; 'if-match'?: string | undefined; 'user-agent'?: string | undefined },
): Promise<{ etag: string; correlationId: string; text: string }> {
  const token = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1] ?? '';
  const { payload } = await jwtVerify(token, secretKey, { algorithms: ['HS256'], requiredClaims: ['exp'], clockTolerance: 5 });
  const actor = claimsToActor(payload) as Actor;
  const correlationId = crypto.randomUUID();
  const view = await governed.service.update(
    { actor, scope: { workspaceId: governed.workspaceId }, meta: { requestId: correlationId, userAgent: headers['user-agent'] ?? null } },
    id,
    body as never,
    headers['if-match'] === undefined ? {} : { ifMatch: Number(headers['if-match'].replaceAll('"', '')) },
  );
  return { etag: `"${view.meta.version}"`, correlationId, text: JSON.stringify(view) };
}

/** Headers of a native PATCH answer. */
const patchHeaders = (answer: { etag: string; correlationId: string }) => ({
  'content-type': JSON_TYPE,
  etag: answer.etag,
  'x-correlation-id': answer.correlationId,
});

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function serve(): Promise<string> {
  const native = mode === 'native';
  if (framework === 'node') {
    if (mode === 'bridge') {
      // The adapter alone: toNodeHandler around a handler that does no routing or work and hands
      // back one prebuilt light response (the adapter writes it without consuming it, so it can
      // be sent again): the node row's difference split into adapter and core.
      const answer = lightResponse(new Uint8Array(primitives), 200, [['content-type', JSON_TYPE]]);
      return listen(toNodeHandler(createFetchHandler(async (request) => (request.method === 'GET' ? answer : undefined))));
    }
    if (!native) return listen(toNodeHandler(handler));
    return listen((req, res) => {
      if (req.method === 'GET' && req.url === '/api/primitives') {
        res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': primitives.length }).end(primitives);
        return;
      }
      const id = req.method === 'PATCH' ? itemPath.exec(req.url ?? '')?.[1] : undefined;
      if (!id) return void res.writeHead(404).end();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void patchNatively(id, JSON.parse(Buffer.concat(chunks).toString('utf8')), req.headers).then((answer) => {
          const bytes = Buffer.from(answer.text);
          res.writeHead(200, { ...patchHeaders(answer), 'content-length': bytes.length }).end(bytes);
        });
      });
    });
  }
  if (framework === 'express') {
    const app = express();
    if (native) {
      app.get('/api/primitives', (_req, res) => void res.type(JSON_TYPE).send(primitives));
      app.patch(`${governed.collection}/:id`, express.json(), async (req, res) => {
        const answer = await patchNatively(req.params.id!, req.body, req.headers);
        res.set(patchHeaders(answer)).send(answer.text);
      });
    } else app.use(toExpress(handler));
    return listen(app);
  }
  if (framework === 'next') {
    // The route modules run in this process and read the slot on each request.
    const slot: BenchSlot = { handler, primitives: new Uint8Array(primitives), patchNatively };
    (globalThis as Record<symbol, unknown>)[BENCH_SLOT] = slot;
    const next = (await import('next')).default;
    const app = next({ dev: false, dir: `${process.cwd()}/test/bench/next-app`, quiet: true });
    await app.prepare();
    return listen(app.getRequestHandler());
  }
  if (framework === 'fastify') {
    const app = Fastify();
    if (native) {
      app.get('/api/primitives', async (_request, reply) => reply.type(JSON_TYPE).send(primitives));
      app.patch<{ Params: { id: string } }>(`${governed.collection}/:id`, async (request, reply) => {
        const answer = await patchNatively(request.params.id, request.body, request.headers);
        return reply.headers(patchHeaders(answer)).send(answer.text);
      });
    } else await app.register(cellgatePlugin, { handler });
    return app.listen({ port: 0, host: '127.0.0.1' });
  }
  const app = new Hono();
  if (native) {
    app.get('/api/primitives', (c) => c.body(new Uint8Array(primitives), 200, { 'content-type': JSON_TYPE }));
    app.patch(`${governed.collection}/:id`, async (c) => {
      const answer = await patchNatively(c.req.param('id'), await c.req.json(), {
        authorization: c.req.header('authorization'),
        'if-match': c.req.header('if-match'),
        'user-agent': c.req.header('user-agent'),
      });
      return c.body(answer.text, 200, patchHeaders(answer));
    });
  } else app.use('*', toHono(handler));
  return listen(getRequestListener(app.fetch));
}

const url = await serve();
const prefix = framework === 'next' && mode === 'native' ? '/native' : '';
console.log(JSON.stringify({ url, prefix, collection: governed.collection, auth: governed.auth, records }));
console.log(`listening on ${url}`);
process.once('SIGINT', () => process.exit(0));
