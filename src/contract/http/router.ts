/**
 * Turns the route table into a path router: each path gets its methods, `HEAD` for its `GET`,
 * `OPTIONS` (preflight or a plain `Allow` answer), and a catch-all that answers 405 with `Allow`
 * for any other method. Paths no route knows fall through (`undefined`).
 *
 * In front of the router, two shortcuts that never change an answer (see `path-shortcuts.ts`): a
 * request for exactly a static path with one of its methods goes straight to that handler, and a
 * path outside every route's first segment falls through at once. Both use the path only when
 * URL parsing could not change it; anything else, and every parameterised route, trailing slash
 * and 405, goes through the router.
 */
import { CellgateError } from '../../errors.ts';
import { readJsonText } from '../../http/body.ts';
import { boundJsonDepth, parseClientJson, parseJsonText } from '../../http/json.ts';
import { encodeOnce, lightResponse, SECURITY_HEADERS } from '../../http/light-response.ts';
import { searchParamsOf } from '../../http/query.ts';
import { ANY_METHOD, createPathRouter, type PathParams } from '../../http/path-router.ts';
import { JSON_CONTENT_TYPE } from '../../http/responses.ts';
import type { ContractContext } from '../context.ts';
import type { CorsPolicy } from './cors.ts';
import type { RouteDefinition, RouteInput } from './route.ts';
import { createPathShortcuts } from './path-shortcuts.ts';
import { CellgateAttributes, routeOfPattern, spanTemplate, withSpan } from '../../telemetry/request-span.ts';

/** Extra path owned by the handler but served by a plain Fetch function (the MCP endpoint). */
export interface MountedEndpoint {
  path: string;
  /** Methods announced in `Allow` and CORS preflights. */
  methods: string;
  serve(request: Request): Promise<Response>;
}

/** What the router needs besides the routes. */
export interface RouterSettings {
  basePath: string;
  context: ContractContext;
  cors: CorsPolicy | undefined;
  mounts: MountedEndpoint[];
}

/** The router's entry: a response for the handler's own paths, `undefined` for any other. */
export type RouteMatcher = (request: Request) => Promise<Response | undefined>;

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const BOUNDED = (): void => undefined;

function decodeParams(raw: PathParams | undefined): Record<string, string> {
  if (!raw) return NO_PARAMS;
  let params: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(raw)) {
    params ??= {};
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      throw new CellgateError('BAD_REQUEST', `Path parameter "${name}" is not valid percent-encoding.`);
    }
  }
  return params ?? NO_PARAMS;
}

/** A route's runner: called by the router (with the path's parameters) or by the static shortcut (none). */
type Runner = (request: Request, params?: PathParams) => Response | Promise<Response>;

/** Runs one route: cached body if any, else body reading, the service call and serialisation. */
function runner(route: RouteDefinition, context: ContractContext): (request: Request, params?: PathParams) => Promise<Response> {
  // Cached answers are kept as UTF-8 bytes: encoded once, not on every write.
  const cache = route.cacheKey ? new Map<string, Uint8Array>() : undefined;
  // One header list per route, shared by every answer (cheaper than an object literal per request).
  // It carries SECURITY_HEADERS already, in the order `lightResponse` would append them: a list
  // without them is copied on every answer to add them (issue #33), same bytes either way.
  const headers: ReadonlyArray<readonly [string, string]> = [['content-type', route.contentType ?? JSON_CONTENT_TYPE], ...SECURITY_HEADERS];
  const answer = (body: string | Uint8Array) => lightResponse(body, 200, headers);
  return async (request: Request, params?: PathParams): Promise<Response> => {
    const input: RouteInput = {
      request,
      params: decodeParams(params),
      query: searchParamsOf(request.url),
      body: undefined,
      bodyLength: undefined,
      boundBodyDepth: BOUNDED,
      context,
    };
    const key = cache && route.cacheKey!(input);
    if (key !== undefined) {
      const hit = cache!.get(key);
      if (hit !== undefined) return answer(hit);
    }
    if (route.body) {
      const text = await readJsonText(input.request, { limit: context.bodyLimit });
      input.bodyLength = text.length;
      if (route.provesBodyDepth) {
        const body = parseJsonText(text);
        input.body = body;
        input.boundBodyDepth = () => boundJsonDepth(text, body);
      } else input.body = parseClientJson(text);
    }
    const handled = route.handle(input);
    // Most services answer synchronously: awaiting only a promise saves a turn of the job queue.
    const result = handled instanceof Promise ? await handled : handled;
    if (result instanceof Response) return result;
    const text = route.serialize ? route.serialize(result as never) : JSON.stringify(result);
    if (key === undefined) return answer(text);
    const bytes = encodeOnce(text);
    cache!.set(key, bytes);
    return answer(bytes);
  };
}

/** Builds the matcher for `routes` (grouped by path, in table order). */
export function createRouteMatcher(routes: RouteDefinition[], settings: RouterSettings): RouteMatcher {
  const { cors, context } = settings;
  const router = createPathRouter(settings.basePath);
  const byPath = new Map<string, RouteDefinition[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);

  const options = (methods: string) => (request: Request) =>
    new Response(null, {
      status: 204,
      headers: { allow: methods, ...(cors ? cors.preflight(request, methods) : {}) },
    });
  const notAllowed = (methods: string) => (request: Request) => {
    throw new CellgateError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${methods}.`, {
      headers: { allow: methods },
    });
  };

  const shortcuts = createPathShortcuts<Runner>(settings.basePath);
  /** Registers a method handler with the router and, for static paths, the shortcut table. */
  const add = (method: 'GET' | 'POST' | 'HEAD' | 'OPTIONS', path: string, run: Runner) => {
    router.add(method, path, run);
    shortcuts.add(method, path, run);
  };
  for (const [path, group] of byPath) {
    const methods = group.flatMap((route) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]));
    const allow = [...methods, 'OPTIONS'].join(', ');
    for (const route of group) {
      const run = withSpan(
        spanTemplate(route.method, routeOfPattern(settings.basePath + path), { [CellgateAttributes.operation]: route.operationId }),
        runner(route, context),
      );
      add(route.method, path, run);
      if (route.method === 'GET') {
        add('HEAD', path, async (request: Request, params?: PathParams) => {
          const response = await run(request, params);
          return new Response(null, { status: response.status, headers: response.headers });
        });
      }
    }
    add('OPTIONS', path, options(allow));
    router.add(ANY_METHOD, path, notAllowed(allow));
    shortcuts.own(path);
  }
  for (const mount of settings.mounts) {
    const serve = (request: Request) => mount.serve(request);
    add('OPTIONS', mount.path, options(`${mount.methods}, OPTIONS`));
    router.add(ANY_METHOD, mount.path, serve);
    // Its own methods skip the router's walk over every route pattern (the mount is registered last).
    for (const method of mount.methods.split(', ')) shortcuts.add(method, mount.path, serve);
    shortcuts.own(mount.path);
  }

  return (request) => {
    const shortcut = shortcuts.find(request.method, request.url);
    if (shortcut === null) return Promise.resolve(undefined);
    if (shortcut) return Promise.resolve(shortcut(request));
    return router.fetch(request);
  };
}
