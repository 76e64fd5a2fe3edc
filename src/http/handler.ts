/**
 * The shape both capabilities return: a Fetch handler that always answers, plus `match`, which
 * resolves `undefined` for requests that are not its own so a host (or an adapter) can fall
 * through to its own routes.
 */
import { CellgateError } from '../errors.ts';
import { answerFor, isLightResponse, lightResponseParts, SECURITY_HEADERS } from './light-response.ts';
import { errorResponse, withHeaders } from './responses.ts';

/** Answers a request it owns, or resolves `undefined` so the host can handle it. */
export type MatchFunction = (request: Request) => Promise<Response | undefined>;

/**
 * A cellgate handler. Call it like any Fetch handler (`(request) => Promise<Response>`; a request
 * no route owns gets a 404 envelope), or call `match` to fall through on unmatched requests.
 *
 * @example
 * const handler = createContractHandler();
 * const response = await handler(new Request('http://localhost/health'));
 */
export interface FetchHandler {
  (request: Request): Promise<Response>;
  /** Answers the request, or resolves `undefined` when no route of this handler matches it. */
  match: MatchFunction;
}

/**
 * `response` with `SECURITY_HEADERS`. Light responses carry them from construction; any other
 * `Response` (the docs page and assets, MCP answers from the SDK transport, HEAD and preflight
 * answers) gets them here, copied first when its headers are immutable.
 */
export function withSecurityHeaders(response: Response): Response {
  if (isLightResponse(response)) return response;
  return withHeaders(response, Object.fromEntries(SECURITY_HEADERS.filter(([name]) => !response.headers.has(name))));
}

/**
 * The answer to a HEAD request: the status and headers of the GET answer it was served as, and no
 * body (RFC 9110 §9.3.2), whatever the runtime does with a body on HEAD. A light answer's body is
 * never built; any other's is cancelled (an export stream stops at once). Already bodiless: as is.
 */
function headAnswer(response: Response): Response {
  const light = lightResponseParts(response);
  if (light === undefined) {
    if (response.body === null) return response;
    void response.body.cancel().catch(() => undefined);
  }
  const head = new Response(null, { status: response.status, headers: response.headers });
  // GET's length, which a light answer carries only as its text (adapters measure it when writing).
  if (light !== undefined && !head.headers.has('content-length'))
    head.headers.set('content-length', String(typeof light.body === 'string' ? utf8.encode(light.body).byteLength : light.body.byteLength));
  return head;
}

const utf8 = new TextEncoder();

/**
 * Wraps a match function into a {@link FetchHandler}. Every answer of both (the handler and its
 * `match`) carries the security headers, so a composed handler or an adapter calling `match`
 * gets them too. Every answer is a real `Response` of the runtime, which Bun, Deno and workerd
 * can serve, except for a request that asks for the light form (`LIGHT_RESPONSES`, set by the
 * Node adapters, which write it without building the `Response`). A HEAD answer has no body.
 */
export function createFetchHandler(inner: MatchFunction): FetchHandler {
  const finish = (request: Request, response: Response) => answerFor(request, withSecurityHeaders(request.method === 'HEAD' ? headAnswer(response) : response));
  const match: MatchFunction = async (request) => {
    const response = await inner(request);
    return response === undefined ? undefined : finish(request, response);
  };
  // The handler awaits `inner` itself rather than `match`: one async frame (and its turns of the
  // job queue) less per request, which a cached GET notices (issue #33). Same answer as `match`.
  const handler = (async (request: Request) => {
    const response = await inner(request);
    if (response !== undefined) return finish(request, response);
    const path = new URL(request.url).pathname;
    const notFound = errorResponse(new CellgateError('NOT_FOUND', `No route matches ${request.method} ${path}.`), { request });
    return request.method === 'HEAD' ? answerFor(request, headAnswer(notFound)) : notFound;
  }) as FetchHandler;
  handler.match = match;
  return handler;
}

/**
 * Mounts several handlers as one: each request goes to the first handler whose routes match it.
 *
 * @example
 * const api = composeHandlers(createContractHandler(), customers, invoices);
 */
export function composeHandlers(...handlers: Array<Pick<FetchHandler, 'match'>>): FetchHandler {
  return createFetchHandler(async (request) => {
    for (const handler of handlers) {
      const response = await handler.match(request);
      if (response) return response;
    }
    return undefined;
  });
}
