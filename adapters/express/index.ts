/**
 * `cellgate/adapters/express`: a cellgate handler as Express middleware (Express 4 and 5).
 * Unmatched requests go to `next()`; mounted under a prefix the full `req.originalUrl` is passed on
 * (give the core the same `basePath`); a body `express.json()` already parsed is re-serialised,
 * an untouched one is streamed with the core's byte limit.
 *
 * @example
 * import express from 'express';
 * import { createContractHandler } from 'cellgate';
 * import { toExpress } from 'cellgate/adapters/express';
 *
 * const app = express();
 * app.use('/platform', toExpress(createContractHandler({ basePath: '/platform' })));
 * app.listen(3000);
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FetchHandler } from 'cellgate';
import { handleNodeRequest, type NodeAdapterOptions } from 'cellgate/adapters/node';

/** The members of Express's request the adapter reads (structural, so Express 4 and 5 both fit). */
export interface ExpressRequestLike extends IncomingMessage {
  /** The URL before Express stripped the mount path. */
  originalUrl?: string;
  /** Set by a body parser such as `express.json()`. */
  body?: unknown;
}

/** Express middleware: `(req, res, next) => void`. */
export type ExpressMiddleware = (req: ExpressRequestLike, res: ServerResponse, next: (error?: unknown) => void) => void;

/** Options of {@link toExpress}: those of every Node adapter (`trustProxy`, `origin`, `onError`). */
export type ExpressAdapterOptions = NodeAdapterOptions;

/**
 * Wraps a cellgate handler as Express middleware.
 *
 * @example
 * app.use(express.json());                       // optional: parsed bodies are re-serialised
 * app.use(toExpress(composeHandlers(contract, customers), { onError: (e) => log.error(e) }));
 */
export function toExpress(handler: FetchHandler, options: ExpressAdapterOptions = {}): ExpressMiddleware {
  return (req, res, next) => {
    void handleNodeRequest(handler, req, res, {
      ...options,
      url: req.originalUrl ?? req.url,
      body: req.body,
      next: () => next(),
    });
  };
}
