/**
 * `cellgate/adapters/hono`: a cellgate handler as Hono middleware. Hono already speaks Fetch, so
 * this is only the fall-through: answered requests return the core's `Response`, unmatched ones
 * continue with `await next()`. Runs the same on Node (`@hono/node-server`), Bun, Deno and workers.
 *
 * @example
 * import { Hono } from 'hono';
 * import { createContractHandler } from 'cellgate';
 * import { toHono } from 'cellgate/adapters/hono';
 *
 * const app = new Hono();
 * app.use('/platform/*', toHono(createContractHandler({ basePath: '/platform' })));
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { errorResponse, setClientAddress, type FetchHandler } from 'cellgate';
import { toAbortableRequest } from 'cellgate/adapters/node';

/** What `@hono/node-server` puts in `c.env`. */
interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/**
 * The request to hand the core. On `@hono/node-server` (Node objects in `c.env`, body not read
 * yet) it is the Node adapters' lazy request: the core then reads the body straight from the
 * socket with its byte limit, where Hono's own request would first build a full undici `Request`
 * and a web stream. Elsewhere (Bun, Deno, workers, `app.request()`) it is Hono's `c.req.raw`.
 */
function requestOf(raw: Request, env: NodeBindings | undefined): Request {
  if (!env?.incoming || !env.outgoing || raw.bodyUsed) {
    setClientAddress(raw, env?.incoming?.socket?.remoteAddress);
    return raw;
  }
  // Built from the Node request like the other adapters (no URL parsing); if Hono's URL differs
  // (`app.mount()` strips a prefix, the server was given another hostname), Hono's counts.
  const request = toAbortableRequest(env.incoming, env.outgoing);
  return request.url === raw.url ? request : toAbortableRequest(env.incoming, env.outgoing, { url: raw.url });
}

/** Options of {@link toHono}. */
export interface HonoAdapterOptions {
  /**
   * Called with any failure of the adapter itself; the client gets the envelope 500.
   * @example onError: (error) => console.error(error)
   */
  onError?: (error: unknown, request?: Request) => void;
}

/**
 * Wraps a cellgate handler as Hono middleware (`app.use(path, toHono(handler))`).
 *
 * @example
 * app.use('*', toHono(composeHandlers(contract, customers)));
 */
export function toHono(handler: FetchHandler, options: HonoAdapterOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    let response: Response | undefined;
    let request: Request | undefined;
    try {
      request = requestOf(c.req.raw, c.env as NodeBindings | undefined);
      response = await handler.match(request);
    } catch (error) {
      response = errorResponse(error, { onError: options.onError, request: request ?? c.req.raw });
    }
    if (response) return response;
    await next();
    return undefined;
  };
}
