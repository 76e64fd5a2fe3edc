/** The Express host: the reference app mounted with `toExpress`, next to the app's own routes. */
import { createServer } from 'node:http';
import express from 'express';
import type { FetchHandler } from 'cellgate';
import { toExpress } from 'cellgate/adapters/express';
import { nodeServer, type MountedServer } from './run-host.ts';

/** Builds the Express app serving `handler` (plus one route of its own). */
export function createExpressApp(handler: FetchHandler): express.Express {
  const app = express();
  app.get('/hello', (_req, res) => {
    res.json({ from: 'express' });
  });
  app.use(toExpress(handler)); // everything cellgate does not own falls through to next()
  return app;
}

/** The host's server. */
export function mountExpress(handler: FetchHandler): MountedServer {
  return nodeServer(createServer(createExpressApp(handler)));
}
