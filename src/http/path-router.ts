/**
 * The router of a fixed route table: routes are tried in the order they were added, the first
 * whose method and path pattern match runs, and a handler that answers `undefined` passes the
 * request on to the next route. No match answers `undefined` (the path is not this handler's).
 *
 * Patterns and matching are those of itty-router 6, which cellgate used before (its versions are
 * deprecated on npm): `:name` is one path segment, `:name+` the rest of the path, repeated slashes
 * in a pattern collapse, and any number of trailing slashes in the request path match. Matching
 * reads the path as URL parsing gives it, still percent-encoded; the caller decodes parameters.
 */

/** Path parameters of a match, by the names of the pattern (not decoded). */
export type PathParams = Readonly<Record<string, string>>;

/** A route's handler; `undefined` lets the next matching route answer. */
export type PathHandler = (request: Request, params: PathParams) => Response | undefined | Promise<Response | undefined>;

/** Method that matches any request method. */
export const ANY_METHOD = '*';

interface PathRoute {
  method: string;
  pattern: RegExp;
  handler: PathHandler;
}

/** A route table with its matcher. */
export interface PathRouter {
  /** Adds a route for `method` (upper case, or {@link ANY_METHOD}) on `pattern` below the base path. */
  add(method: string, pattern: string, handler: PathHandler): void;
  /** The answer of the first matching route that answers, or `undefined`. */
  fetch(request: Request): Promise<Response | undefined>;
}

const NO_PARAMS: PathParams = Object.freeze({});

/**
 * The regular expression of a pattern below `base`, built by the same steps as itty-router 6 so
 * every path matches (or not) exactly as it did.
 */
export function compilePathPattern(base: string, pattern: string): RegExp {
  const source = `${base}${pattern}`
    // Repeated slashes collapse; a trailing one goes (the request may carry any number).
    .replace(/\/+(\/|$)/g, '$1')
    // `:name+`: the rest of the path (the `*` becomes `.*` below).
    .replace(/(\/?\.?):(\w+)\+/g, '($1(?<$2>*))')
    // `:name`: one segment (lazy, so trailing slashes are left to the `/*$` below).
    .replace(/(\/?\.?):(\w+)/g, '($1(?<$2>[^$1/]+?))')
    .replace(/\./g, '\\.')
    .replace(/(\/?)\*/g, '($1.*)?');
  return new RegExp(`^${source}/*$`);
}

/** Creates an empty router for routes below `base` (`''` for the root). */
export function createPathRouter(base = ''): PathRouter {
  const routes: PathRoute[] = [];
  return {
    add(method, pattern, handler) {
      routes.push({ method, pattern: compilePathPattern(base, pattern), handler });
    },
    async fetch(request) {
      const path = new URL(request.url).pathname;
      for (const route of routes) {
        if (route.method !== request.method && route.method !== ANY_METHOD) continue;
        const match = route.pattern.exec(path);
        if (match === null) continue;
        const answer = await route.handler(request, match.groups ?? NO_PARAMS);
        if (answer !== undefined) return answer;
      }
      return undefined;
    },
  };
}
