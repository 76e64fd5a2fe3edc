/**
 * `cellgate/adapters/express`: a cellgate handler as Express middleware (Express 4 and 5).
 * Unmatched requests go to `next()`. Under a prefix (`app.use('/platform', …)`) the full
 * `req.originalUrl` is passed on; a handler created without the matching `basePath` is still
 * served under the prefix (learnt from `req.baseUrl`), with a one-time hint. Mount it before
 * `express.json()`: the core then reads the body itself with its own limit. Mounted after it, a
 * parsed body is re-serialised, and the body parser's failures on cellgate's paths (bad JSON, a
 * body over the parser's limit) get cellgate's JSON envelope instead of Express's HTML page.
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
import { CellgateError, errorResponse, type FetchHandler } from 'cellgate/adapter-kit';
import { handleNodeRequest, mountedMatch, normalizeMountPath, writeResponse, type NodeAdapterOptions } from 'cellgate/adapters/node';

/** The members of Express's request the adapter reads (structural, so Express 4 and 5 both fit). */
export interface ExpressRequestLike extends IncomingMessage {
  /** The URL before Express stripped the mount path. */
  originalUrl?: string;
  /** The path Express mounted this middleware at (`''` at the root). */
  baseUrl?: string;
  /** Set by a body parser such as `express.json()`. */
  body?: unknown;
}

/** Express middleware: `(req, res, next) => void`. */
export type ExpressMiddleware = (req: ExpressRequestLike, res: ServerResponse, next: (error?: unknown) => void) => void;

/** Express error middleware (four parameters): `(error, req, res, next) => void`. */
export type ExpressErrorMiddleware = (error: unknown, req: ExpressRequestLike, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * What {@link toExpress} returns: the middleware and its body-parser error handler, in one array
 * that `app.use()` and routers accept as they are.
 */
export type ExpressMiddlewareStack = [ExpressMiddleware, ExpressErrorMiddleware];

/** Options of {@link toExpress}: those of every Node adapter (`trustProxy`, `origin`, `onError`). */
export type ExpressAdapterOptions = NodeAdapterOptions;

/** The failure of a body parser in front (body-parser's errors carry `type` and a 4xx `status`). */
interface BodyParserError {
  type: string;
  status?: number;
  body?: unknown;
  limit?: number;
}

function bodyParserError(error: unknown): BodyParserError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status } = error as Partial<BodyParserError>;
  return typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500 ? (error as BodyParserError) : undefined;
}

/** The envelope for a body-parser failure the core cannot see itself (the body is gone). */
function parserFailure(error: BodyParserError): CellgateError {
  if (error.type === 'entity.too.large') {
    const limit = typeof error.limit === 'number' ? ` (${error.limit} bytes)` : '';
    return new CellgateError(
      'PAYLOAD_TOO_LARGE',
      `Request body is larger than the body parser in front of cellgate accepts${limit}. Mount toExpress() before express.json(), or raise its limit.`,
    );
  }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new CellgateError('UNSUPPORTED_MEDIA_TYPE', 'Request body encoding or charset is not supported.');
  }
  return new CellgateError('BAD_REQUEST', 'Request body could not be read.');
}

/**
 * Wraps a cellgate handler as Express middleware. Returns the middleware and an error handler for
 * the body parsers in front of it; pass both to `app.use()` (it takes the array as it is).
 *
 * @example toExpress
 * import express from 'express';
 * import { createContractHandler } from 'cellgate';
 * import { toExpress } from 'cellgate/adapters/express';
 *
 * const app = express();
 * app.use(toExpress(createContractHandler(), { onError: (error) => console.error(error) }));
 * app.use(express.json()); // after cellgate: its bodies reach the core untouched
 * app.listen(3000);
 */
export function toExpress(handler: FetchHandler, options: ExpressAdapterOptions = {}): ExpressMiddlewareStack {
  const match = mountedMatch(handler, 'express');
  const dispatch = (req: ExpressRequestLike, res: ServerResponse, next: () => void, body: unknown) =>
    handleNodeRequest(handler, req, res, {
      ...options,
      url: req.originalUrl ?? req.url,
      body,
      next,
      mount: { path: normalizeMountPath(req.baseUrl), match },
    });

  const middleware: ExpressMiddleware = (req, res, next) => {
    void dispatch(req, res, () => next(), req.body);
  };

  const onParserError: ExpressErrorMiddleware = (error, req, res, next) => {
    const failure = bodyParserError(error);
    if (!failure || res.headersSent) return next(error);
    // Bad JSON: body-parser kept the raw text, so the core sees the original bytes and answers
    // with its own 400 on its paths; other paths get the error back.
    if (failure.type === 'entity.parse.failed' && typeof failure.body === 'string') {
      void dispatch(req, res, () => next(error), failure.body);
      return;
    }
    // The body is gone: ask the core (without a body) whether the path is its own.
    void (async () => {
      try {
        // Routing depends on the path only; an OPTIONS probe has no body and no side effect.
        const probe = (url: string) => new Request(url, { method: 'OPTIONS' });
        const owned = await match(probe(new URL(req.originalUrl ?? req.url ?? '/', 'http://localhost').href), normalizeMountPath(req.baseUrl), probe);
        if (!owned) return next(error);
        await writeResponse(res, errorResponse(parserFailure(failure)));
      } catch {
        next(error);
      }
    })();
  };

  return [middleware, onParserError];
}
