/**
 * `cellgate/adapters/next`: a cellgate handler as the route handlers of a Next.js App Router
 * catch-all route (`app/[...cellgate]/route.ts`, Node runtime). Next already hands route handlers
 * a Fetch `Request` with the full URL and streams the returned `Response`, so this only adds the
 * one export per method and the last-resort envelope 500. A catch-all route owns its paths: an
 * unmatched request gets the core's 404 envelope (put the host's own routes in more specific
 * folders, which Next routes first).
 *
 * The handler is usually built on first request, from a factory: `next build` loads the route
 * file to collect its exports, and a handler built at module load would need its settings (a JWT
 * secret, a database URL) at build time.
 *
 * @example
 * // app/[...cellgate]/route.ts
 * import { toNextRouteHandlers } from 'cellgate/adapters/next';
 *
 * export const runtime = 'nodejs';
 * export const dynamic = 'force-dynamic';
 * // Imported (and so built) on the first request, not by `next build`.
 * export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = toNextRouteHandlers(async () => (await import('@/cellgate')).cellgate);
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
   * Called with any failure of the adapter itself or of the handler factory; the client gets the
   * envelope 500. Without it, the failure is written to stderr as one JSON line.
   * @example onError: (error) => console.error(error)
   */
  onError?: (error: unknown, request?: Request) => void;
}

/** What {@link toNextRouteHandlers} serves: a handler, or a factory that builds one. */
export type NextHandlerSource = FetchHandler | (() => FetchHandler | Promise<FetchHandler>);

/**
 * Builds the route handler exports for `handler`, or for the handler a factory builds.
 *
 * A factory is called on the first request, not when the route file loads (so `next build` never
 * runs it), and once: concurrent first requests share the one call, later requests use its
 * handler. If it throws or rejects, that request gets the envelope 500 (the cause goes to
 * `onError`, or one JSON line on stderr), and the next request calls the factory again, so a
 * setting fixed or a database back up heals without a restart.
 *
 * @example toNextRouteHandlers
 * // app/[...cellgate]/route.ts: the factory runs on the first request, never during `next build`.
 * import { createContractHandler } from 'cellgate';
 * import { toNextRouteHandlers } from 'cellgate/adapters/next';
 *
 * export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = toNextRouteHandlers(() => createContractHandler());
 */
export function toNextRouteHandlers(handler: NextHandlerSource, options: NextAdapterOptions = {}): NextRouteHandlers {
  const resolve = 'match' in handler ? () => handler : once(handler);
  const route: NextRouteHandler = async (request) => {
    try {
      return await (await resolve())(request);
    } catch (error) {
      return errorResponse(error, { onError: options.onError, request });
    }
  };
  return { GET: route, HEAD: route, POST: route, PUT: route, PATCH: route, DELETE: route, OPTIONS: route };
}

/** `build`, called at most once at a time and remembered once it succeeded (a failure is forgotten). */
function once(build: () => FetchHandler | Promise<FetchHandler>): () => FetchHandler | Promise<FetchHandler> {
  let built: FetchHandler | undefined;
  let pending: Promise<FetchHandler> | undefined;
  return () => {
    if (built !== undefined) return built;
    pending ??= (async () => {
      try {
        built = await build();
        return built;
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };
}
