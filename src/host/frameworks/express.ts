/** The Express host: the reference app mounted with `toExpress`, next to the app's own routes. */
import { createServer } from 'node:http';
import express from 'express';
import { stderrJsonLogger, type FetchHandler } from 'cellgate';
import { toExpress } from 'cellgate/adapters/express';
import { nodeServer, notFoundEnvelope, type MountedServer } from 'cellgate/host';

/**
 * Builds the Express app serving `handler` (plus one route of its own). No `X-Powered-By`
 * (it tells an attacker the framework), and the host's own 404 and 500 are JSON envelopes like
 * cellgate's, not Express's HTML pages (whose 500 page shows the stack outside production).
 */
export function createExpressApp(handler: FetchHandler): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    res.set('x-content-type-options', 'nosniff');
    next();
  });
  app.get('/hello', (_req, res) => {
    res.json({ from: 'express' });
  });
  app.use(toExpress(handler)); // everything cellgate does not own falls through to next()
  app.use((req, res) => {
    res.status(404).json(notFoundEnvelope(req.method, req.path));
  });
  app.use((error: unknown, req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const correlationId = crypto.randomUUID();
    stderrJsonLogger.error({ correlationId, method: req.method, path: req.path, err: error }, 'express host: unexpected failure');
    if (res.headersSent) return void res.end();
    res
      .status(500)
      .json({ error: 'INTERNAL_ERROR', message: 'An unexpected error occurred. Quote the correlation id when reporting it.', details: { correlationId } });
  });
  return app;
}

/** The host's server. */
export function mountExpress(handler: FetchHandler): MountedServer {
  return nodeServer(createServer(createExpressApp(handler)));
}
