/**
 * Shortcuts in front of the contract router (`src/http/path-router.ts`), for the two commonest cases:
 *
 * - a request for exactly a static path (`GET /api/primitives`) with a method registered for it
 *   goes straight to its handler. The router would parse the URL, build the query object and try
 *   the routes' patterns in turn, which cost more than the cached answer itself;
 * - a request whose path lies outside the first segment of every route (`/v1/…` when the handler
 *   is composed with governed resources) is not ours, and is answered `undefined` at once.
 *
 * Neither may change an answer, so both only look at a path that URL parsing would leave exactly
 * as it is (no percent-escapes, backslashes or dot segments); for anything else, and for every
 * trailing-slash variant, parameterised route and 405, the caller asks the router.
 */

/** Characters URL parsing keeps as they are in a path; `%` and `\` are deliberately missing. */
const PLAIN_PATH = /^\/[\w\-.~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/**
 * The path of an absolute URL string, when `new URL(url).pathname` would be the same string;
 * `undefined` otherwise.
 *
 * @example
 * plainPathOf('http://localhost:3000/api/primitives?category=layout'); // '/api/primitives'
 * plainPathOf('http://localhost/api/%70rimitives'); // undefined
 */
export function plainPathOf(url: string): string | undefined {
  const scheme = url.indexOf('://');
  const start = scheme === -1 ? -1 : url.indexOf('/', scheme + 3);
  if (start === -1) return undefined;
  let end = url.length;
  for (let i = start; i < url.length; i++) {
    const char = url.charCodeAt(i);
    if (char === 63 /* ? */ || char === 35 /* # */) {
      end = i;
      break;
    }
  }
  const path = url.slice(start, end);
  return PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) ? path : undefined;
}

/** The router's own normalisation of `base + path`: repeated slashes collapsed, none trailing. */
function joinPath(base: string, path: string): string {
  return (base + path).replace(/\/+(\/|$)/g, '$1');
}

/** The shortcut table of one router. */
export interface PathShortcuts<H> {
  /** Registers the handler of `method` on a route path (ignored unless the path is static). */
  add(method: string, path: string, handler: H): void;
  /** Declares a route path the router answers for (any method), for the "not ours" check. */
  own(path: string): void;
  /**
   * The handler for this request, `null` when no route can match its path, or `undefined` when
   * the router has to decide.
   */
  find(method: string, url: string): H | null | undefined;
}

/** Builds an empty shortcut table for a router mounted at `basePath`. */
export function createPathShortcuts<H>(basePath: string): PathShortcuts<H> {
  const exact = new Map<string, Map<string, H>>();
  /** `/api`, `/health`, … below the base: a path outside all of them is not ours. */
  const prefixes = new Set<string>();
  /** A route whose first segment is a parameter could match any path. */
  let ownsEverything = false;

  const isStatic = (path: string) => !/[:*]/.test(path);
  const owns = (path: string) => {
    if (ownsEverything) return true;
    for (const prefix of prefixes) {
      if (path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47) /* / */) return true;
    }
    return false;
  };

  return {
    add(method, path, handler) {
      if (!isStatic(path)) return;
      const key = joinPath(basePath, path);
      let methods = exact.get(key);
      if (!methods) exact.set(key, (methods = new Map()));
      methods.set(method, handler);
    },
    own(path) {
      const first = /^\/*([^/]*)/.exec(path)![1]!;
      if (first === '' || !isStatic(first)) ownsEverything = true;
      else prefixes.add(joinPath(basePath, `/${first}`));
    },
    find(method, url) {
      const path = plainPathOf(url);
      if (path === undefined) return undefined;
      const handler = exact.get(path)?.get(method);
      if (handler) return handler;
      return owns(path) ? undefined : null;
    },
  };
}
