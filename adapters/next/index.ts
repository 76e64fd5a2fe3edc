/**
 * `cellgate/adapters/next`: a cellgate handler as the route handlers of a Next.js App Router
 * catch-all route (`app/[...cellgate]/route.ts`, Node runtime). Next already hands route handlers
 * a Fetch `Request` with the full URL and streams the returned `Response`, so this only adds the
 * one export per method and the last-resort envelope 500. A catch-all route owns its paths: an
 * unmatched request gets the core's 404 envelope (put the host's own routes in more specific
 * folders, which Next routes first).
 *
 * @example
 * // app/[...cellgate]/route.ts
 * import { createContractHandler } from 'cellgate';
 * import { toNextRouteHandlers } from 'cellgate/adapters/next';
 *
 * export const runtime = 'nodejs';
 * export const dynamic = 'force-dynamic';
 * export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = toNextRouteHandlers(createContractHandler());
 */
import { errorResponse, type FetchHandler } from 'cellgate/adapter-kit';

/** A Next route handler: Next passes its `NextRequest` (a `Request`) and a route context. */
export type NextRouteHandler = (request: Request, context?: unknown) => Promise<Response>;

/** The route handler exports of a catch-all route file. */
export interface NextRouteHandlers {
  GET: NextRouteHandler;
  HEAD: NextRouteHandler;
  POST: NextRouteHandler;
  PUT: NextRouteHandler;
  PATCH: NextRouteHandler;
  DELETE: NextRouteHandler;
  OPTIONS: NextRouteHandler;
}

/** Options of {@link toNextRouteHandlers}. */
export interface NextAdapterOptions {
  /**
   * Called with any failure of the adapter itself; the client gets the envelope 500.
   * @example onError: (error) => console.error(error)
   */
  onError?: (error: unknown, request?: Request) => void;
}

/**
 * Builds the route handler exports for `handler`. `handler` may also be a function resolving the
 * handler, so an app whose setup is async (opening storage) can be created on first request.
 *
 * @example
 * export const { GET, POST, PATCH, DELETE } = toNextRouteHandlers(() => getApp().then((app) => app.handler));
 */
export function toNextRouteHandlers(handler: FetchHandler | (() => Promise<FetchHandler>), options: NextAdapterOptions = {}): NextRouteHandlers {
  const resolve = 'match' in handler ? () => handler : (handler as () => Promise<FetchHandler>);
  const route: NextRouteHandler = async (request) => {
    try {
      return await (await resolve())(request);
    } catch (error) {
      return errorResponse(error, { onError: options.onError, request });
    }
  };
  return { GET: route, HEAD: route, POST: route, PUT: route, PATCH: route, DELETE: route, OPTIONS: route };
}
