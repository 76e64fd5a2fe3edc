/**
 * `cellgate/adapters/hono`: a cellgate handler as Hono middleware. Hono already speaks Fetch, so
 * this is only the fall-through: answered requests return the core's `Response`, unmatched ones
 * continue with `await next()`. A body a middleware before it already read (validators) is taken
 * from Hono's cache; a failure of the adapter goes to Hono's error path (`app.onError`). Mounted at
 * `app.use('/platform/*', …)` or under `app.route()` / `app.basePath()`, the prefix comes from the
 * route path. Runs the same on Node (`@hono/node-server`), Bun, Deno and workers.
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
import type { Context, MiddlewareHandler } from 'hono';
import { errorResponse, setClientAddress, type FetchHandler } from 'cellgate/adapter-kit';
import { mountedMatch, normalizeMountPath, toAbortableRequest } from 'cellgate/adapters/node';

/** What `@hono/node-server` puts in `c.env`. */
interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/**
 * What a middleware before the adapter already read through Hono (`c.req.json()`, validators):
 * Hono keeps it in `bodyCache` and the raw stream is spent, so the core gets these bytes instead.
 */
async function cachedBody(c: Context): Promise<ArrayBuffer | undefined> {
  const { method } = c.req.raw;
  if (method === 'GET' || method === 'HEAD') return undefined;
  for (const _key in c.req.bodyCache) return c.req.arrayBuffer();
  return undefined;
}

/**
 * The request to hand the core, for `url`. With a body Hono already cached, a request carrying
 * those bytes. On `@hono/node-server` (Node objects in `c.env`, body not read yet) the Node
 * adapters' lazy request: the core then reads the body straight from the socket with its byte
 * limit, where Hono's own request would first build a full undici `Request` and a web stream.
 * Elsewhere (Bun, Deno, workers, `app.request()`) Hono's `c.req.raw`.
 */
function requestOf(c: Context, url: string, cached: ArrayBuffer | undefined): Request {
  const raw = c.req.raw;
  const env = c.env as NodeBindings | undefined;
  if (cached !== undefined) {
    const headers = new Headers(raw.headers);
    headers.set('content-length', String(cached.byteLength));
    const request = new Request(url, { method: raw.method, headers, body: cached, signal: raw.signal });
    setClientAddress(request, env?.incoming?.socket?.remoteAddress);
    return request;
  }
  if (!env?.incoming || !env.outgoing || raw.bodyUsed) {
    const request = url === raw.url ? raw : new Request(url, raw);
    setClientAddress(request, env?.incoming?.socket?.remoteAddress);
    return request;
  }
  // Built from the Node request like the other adapters (no URL parsing); if Hono's URL differs
  // (`app.mount()` strips a prefix, the server was given another hostname), Hono's counts.
  const request = toAbortableRequest(env.incoming, env.outgoing);
  return request.url === url ? request : toAbortableRequest(env.incoming, env.outgoing, { url });
}

/** The static start of the route this middleware was registered at: `/platform/*` → `/platform`. */
function mountPathOf(c: Context): string {
  const path = c.req.routePath ?? '';
  const dynamic = path.search(/[*:]/);
  return normalizeMountPath(dynamic === -1 ? path : path.slice(0, dynamic));
}

/**
 * A failure of the adapter, thrown to Hono's error path. Like Hono's `HTTPException` it has
 * `getResponse()`, which Hono's default handler answers with (the envelope 500), so the adapter
 * needs no runtime import of `hono`; `cause` is the failure, for an `app.onError` of the host.
 */
export class HonoAdapterError extends Error {
  override name = 'HonoAdapterError';
  readonly #response: Response;

  constructor(response: Response, cause: unknown) {
    super('cellgate adapter failure', { cause });
    this.#response = response;
  }

  /** The envelope 500 to answer with. */
  getResponse(): Response {
    return this.#response;
  }
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
 * @example toHono
 * import { Hono } from 'hono';
 * import { createContractHandler } from 'cellgate';
 * import { toHono } from 'cellgate/adapters/hono';
 *
 * export const app = new Hono();
 * app.use('*', toHono(createContractHandler()));
 * app.get('/', (c) => c.text('my app')); // requests cellgate does not own go on
 */
export function toHono(handler: FetchHandler, options: HonoAdapterOptions = {}): MiddlewareHandler {
  const match = mountedMatch(handler, 'hono');
  return async (c, next) => {
    let response: Response | undefined;
    let request: Request | undefined;
    try {
      const cached = await cachedBody(c);
      request = requestOf(c, c.req.raw.url, cached);
      response = await match(request, mountPathOf(c), (url) => requestOf(c, url, cached));
    } catch (error) {
      // Hono's error path: `app.onError` sees it (the cause is the failure); without one, Hono
      // answers with its `getResponse()`, the envelope 500.
      const res = errorResponse(error, { onError: options.onError, request: request ?? c.req.raw });
      throw new HonoAdapterError(res, error);
    }
    if (response) return response;
    await next();
    return undefined;
  };
}
