/**
 * What every governed route does around its operation: correlation id (echoed on every answer,
 * errors and 401s included), authentication, rate limiting, the request hook, request metadata
 * for the audit trail, deprecation headers, `Cache-Control: no-store` on every answer that depends
 * on the token, and the one error choke point.
 */
import { errorResponse } from '../../http/responses.ts';
import type { Logger } from '../../logging.ts';
import { noteFailure } from '../../telemetry/request-span.ts';
import type { Authenticator } from '../auth/verify.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { GovernedContext, GovernedScope } from '../types.ts';
import { CORRELATION_HEADER, clientIpOf, correlationIdOf, traceIdOf, userAgentOf, type ClientIpOptions } from './request-meta.ts';

/**
 * Hooks around governed requests.
 *
 * @example
 * hooks: { onRequest: (request, { actor }) => { if (actor.type === 'service') throw new CellgateError('FORBIDDEN', 'No services.'); } }
 */
export interface GovernedHooks {
  /** Runs after authentication and rate limiting, before the operation. Throw a `CellgateError` to refuse. */
  onRequest?: (request: Request, context: GovernedContext) => void | Promise<void>;
  /** Sees every answer (errors included) and may return a replacement. */
  onResponse?: (response: Response, request: Request) => Response | void | Promise<Response | void>;
}

/** The per-resource settings of the pipeline, resolved once at construction. */
export interface Pipeline extends ClientIpOptions {
  authenticate: Authenticator;
  limiter?: RateLimiter | undefined;
  /** Added to every answer (deprecation headers). */
  headers: Record<string, string>;
  hooks?: GovernedHooks | undefined;
  onError?: ((error: unknown, request?: Request) => void) | undefined;
  /** Receives unexpected failures (see `src/logging.ts`). */
  logger?: Logger | undefined;
}

/**
 * What a shared cache may do with an answer that depends on the token (records, lists, history,
 * the feed, and their errors): keep nothing. Without it a proxy or browser cache may store a
 * record (personal data, with an `ETag`) and serve it to someone else (docs/security.md).
 */
const PRIVATE_CACHE_CONTROL = 'no-store';

async function finish(pipeline: Pipeline, request: Request, response: Response, correlationId: string, tokenBound: boolean): Promise<Response> {
  response.headers.set(CORRELATION_HEADER, correlationId);
  if (tokenBound) response.headers.set('cache-control', PRIVATE_CACHE_CONTROL);
  for (const [name, value] of Object.entries(pipeline.headers)) response.headers.set(name, value);
  if (!pipeline.hooks?.onResponse) return response;
  try {
    return (await pipeline.hooks.onResponse(response, request)) ?? response;
  } catch (error) {
    const failed = errorResponse(error, { correlationId, onError: pipeline.onError, logger: pipeline.logger, request });
    failed.headers.set(CORRELATION_HEADER, correlationId);
    if (tokenBound) failed.headers.set('cache-control', PRIVATE_CACHE_CONTROL);
    return failed;
  }
}

/**
 * Answers with correlation, headers and the error choke point. `tokenBound`: the answer depends on
 * the caller's token, so it gets `Cache-Control: no-store` (every {@link governed} answer); the
 * unauthenticated ones (405s, the public OpenAPI document) stay cacheable as HTTP allows.
 */
export async function answer(
  pipeline: Pipeline,
  request: Request,
  fn: (correlationId: string) => Response | Promise<Response>,
  tokenBound = false,
): Promise<Response> {
  const correlationId = correlationIdOf(request);
  let response: Response;
  try {
    response = await fn(correlationId);
  } catch (error) {
    noteFailure(request, error);
    response = errorResponse(error, { correlationId, onError: pipeline.onError, logger: pipeline.logger, request });
  }
  return finish(pipeline, request, response, correlationId, tokenBound);
}

/**
 * Runs an operation for an authenticated, rate-limited actor with the request's audit metadata
 * and the scope of its path (`scope` throws 404 for a malformed path), so hooks see the scope too.
 */
export function governed(
  pipeline: Pipeline,
  request: Request,
  operation: (context: GovernedContext) => Promise<Response>,
  scope?: () => GovernedScope,
): Promise<Response> {
  return answer(
    pipeline,
    request,
    async (correlationId) => {
      const actor = await pipeline.authenticate(request);
      await pipeline.limiter?.(actor, request);
      const context: GovernedContext = {
        actor,
        meta: {
          requestId: correlationId,
          traceId: traceIdOf(request),
          ip: clientIpOf(request, pipeline),
          userAgent: userAgentOf(request),
        },
        ...(scope === undefined ? {} : { scope: scope() }),
      };
      await pipeline.hooks?.onRequest?.(request, context);
      return operation(context);
    },
    true,
  );
}
