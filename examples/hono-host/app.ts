/** The Hono host: the reference app mounted with `toHono`, on @hono/node-server. */
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import type { FetchHandler } from 'cellgate';
import { toHono } from 'cellgate/adapters/hono';
import { nodeServer, type MountedServer } from '../express-host/run-host.ts';

/** Builds the Hono app serving `handler` (plus one route of its own). */
export function createHonoApp(handler: FetchHandler): Hono {
  const app = new Hono();
  app.get('/hello', (c) => c.json({ from: 'hono' }));
  app.use('*', toHono(handler)); // unmatched requests continue with next()
  return app;
}

/** The host's server. */
export function mountHono(handler: FetchHandler): MountedServer {
  return nodeServer(createServer(getRequestListener(createHonoApp(handler).fetch)));
}
