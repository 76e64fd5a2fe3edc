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
import type { MiddlewareHandler } from 'hono';
import { errorResponse, setClientAddress, type FetchHandler } from 'cellgate';

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
    // On @hono/node-server the Node request is in c.env; record its peer address for the core.
    const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
    setClientAddress(c.req.raw, incoming?.socket?.remoteAddress);
    try {
      response = await handler.match(c.req.raw);
    } catch (error) {
      response = errorResponse(error, { onError: options.onError, request: c.req.raw });
    }
    if (response) return response;
    await next();
    return undefined;
  };
}
