/**
 * Building answers: JSON bodies, pre-serialised bodies for responses that never change, and the one
 * choke point that turns any thrown value into the error envelope.
 */
import { CellgateError, type ErrorBody } from '../errors.ts';
import { reportUnexpectedFailure, type Logger } from '../logging.ts';
import { answerFor, encodeOnce, lightResponse, SECURITY_HEADERS } from './light-response.ts';

/** Content type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON answer. `body` is serialised here; use {@link cachedJson} for bodies that never change. */
export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  return rawJsonResponse(JSON.stringify(body), status, headers);
}

/** The header list of a JSON answer without extra headers (shared: light responses copy before mutating). */
const JSON_HEADERS: ReadonlyArray<readonly [string, string]> = [['content-type', JSON_CONTENT_TYPE], ...SECURITY_HEADERS];

/**
 * A JSON answer from text that is already serialised (or its UTF-8 bytes, for answers served many
 * times: see `encodeOnce`). It is a light `Response` (see `light-response.ts`): the real one
 * is only built if something reads its body, and the Node adapters write the text directly.
 */
export function rawJsonResponse(text: string | Uint8Array, status = 200, headers?: HeadersInit): Response {
  if (headers === undefined) return lightResponse(text, status, JSON_HEADERS);
  const h = new Headers(headers);
  h.set('content-type', JSON_CONTENT_TYPE);
  return lightResponse(text, status, h);
}

/**
 * Memoises the serialisation of a body that never changes (schema descriptions, the catalog,
 * OpenAPI), so each request only wraps the same bytes in a new `Response`.
 */
export function cachedJson(compute: () => unknown): (status?: number, headers?: HeadersInit) => Response {
  let bytes: Uint8Array | undefined;
  return (status = 200, headers) => rawJsonResponse((bytes ??= encodeOnce(JSON.stringify(compute()))), status, headers);
}

/** Adds `headers` to `response`, copying it first if its headers are immutable. */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  const entries = Object.entries(headers);
  if (entries.length === 0) return response;
  try {
    for (const [name, value] of entries) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [name, value] of entries) copy.headers.set(name, value);
    return copy;
  }
}

/** What the choke point needs to know about the request it is answering for. */
export interface ErrorContext {
  /** Correlation id echoed to the client and stored in `details.correlationId` of a 500. */
  correlationId?: string;
  /** Called with every unexpected (non-{@link CellgateError}) failure, for the host's logs. */
  onError?: ((error: unknown, request?: Request) => void) | undefined;
  /** Receives one `error` entry per unexpected failure; without it (and without `onError`), one JSON line goes to stderr. */
  logger?: Logger | undefined;
  /**
   * The request being answered: its failures are reported with it, and the answer is light only
   * when it asks for that (`LIGHT_RESPONSES`); otherwise, and without a request, a real `Response`.
   */
  request?: Request;
}

/**
 * The single place a failure becomes an HTTP answer. A {@link CellgateError} renders its own
 * envelope; anything else is an internal error: the client sees `INTERNAL_ERROR` with a
 * correlation id and nothing of the cause; the cause goes to the host's `onError` / `logger`, or
 * as one JSON line to stderr when the host gave neither (see `src/logging.ts`).
 */
export function errorResponse(error: unknown, context: ErrorContext = {}): Response {
  if (error instanceof CellgateError) {
    return answerFor(context.request, jsonResponse(error.toBody(), error.status, error.headers));
  }
  const correlationId = context.correlationId ?? crypto.randomUUID();
  reportUnexpectedFailure(error, correlationId, context.request, context);
  const body: ErrorBody = {
    error: 'INTERNAL_ERROR',
    message: 'An unexpected error occurred. Quote the correlation id when reporting it.',
    details: { correlationId },
  };
  return answerFor(context.request, jsonResponse(body, 500));
}
