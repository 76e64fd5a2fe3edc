/**
 * Mount paths the framework knows (Express's `req.baseUrl`, a Fastify `prefix`, a Hono route
 * path). The core owns `basePath` and is handed the full URL, so a handler created with the same
 * `basePath` as its mount path matches at once. One created without it would fall through to the
 * host's 404 for every path with no hint; instead its routes are served under the mount path (the
 * prefix stripped) and a warning says once how to make its links (docs, OpenAPI) carry the prefix.
 */
import type { FetchHandler } from 'cellgate/adapter-kit';

/** Asks the handler about a request under a mount path; `rebuild(url)` makes the same request for another URL. */
export type MountedMatch = (request: Request, mountPath: string, rebuild: (url: string) => Request) => Promise<Response | undefined>;

/** `/platform/` → `/platform`; `/` and `''` → `''`. */
export function normalizeMountPath(path: string | undefined): string {
  if (!path || path === '/') return '';
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

/** Whether `pathname` is the mount path itself or below it. */
export function isUnder(pathname: string, mountPath: string): boolean {
  return pathname.startsWith(mountPath) && (pathname.length === mountPath.length || pathname[mountPath.length] === '/');
}

/**
 * A matcher for one adapter instance (the warning is printed once per instance).
 *
 * @param warn where the one-time hint goes. @default console.warn
 */
export function mountedMatch(handler: Pick<FetchHandler, 'match'>, adapter: string, warn: (message: string) => void = console.warn): MountedMatch {
  let warned = false;
  return async (request, mountPath, rebuild) => {
    if (mountPath === '') return handler.match(request);
    const url = new URL(request.url);
    if (!isUnder(url.pathname, mountPath)) return undefined;
    const direct = await handler.match(request);
    if (direct) return direct;
    url.pathname = url.pathname.slice(mountPath.length) || '/';
    const stripped = await handler.match(rebuild(url.href));
    if (stripped && !warned) {
      warned = true;
      warn(
        `cellgate (${adapter}): mounted at "${mountPath}" but the handler was created without basePath "${mountPath}"; ` +
          `serving its routes under the mount path. Create it with { basePath: '${mountPath}' } so the links it writes (docs, OpenAPI) carry the prefix.`,
      );
    }
    return stripped;
  };
}
