/** The Hono host: the reference app mounted with `toHono`, on @hono/node-server. */
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import type { FetchHandler } from 'cellgate';
import { toHono } from 'cellgate/adapters/hono';
import { nodeServer, notFoundEnvelope, type MountedServer } from 'cellgate/host';

/** Builds the Hono app serving `handler` (plus one route of its own). */
export function createHonoApp(handler: FetchHandler): Hono {
  const app = new Hono();
  app.get('/hello', (c) => c.json({ from: 'hono' }));
  app.use('*', toHono(handler)); // unmatched requests continue with next(), then the 404 below
  // The host's 404 in cellgate's envelope (Hono sends no X-Powered-By of its own).
  app.notFound((c) => c.json(notFoundEnvelope(c.req.method, c.req.path), 404, { 'x-content-type-options': 'nosniff' }));
  return app;
}

/** The host's server. */
export function mountHono(handler: FetchHandler): MountedServer {
  return nodeServer(createServer(getRequestListener(createHonoApp(handler).fetch)));
}
