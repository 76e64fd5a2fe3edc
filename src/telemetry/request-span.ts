/**
 * One span per request cellgate answers (docs/observability.md#spans): named and attributed once per
 * route at start-up, started under the right parent (the host's active span, else the request's
 * `traceparent`), made active while the request runs (when the SDK has a context manager), and
 * ended with the status code and the outcome: `ok`, or the error code of the answer. Never a value
 * of a record, a query string or a header goes into a span.
 */
import { CellgateError, errorStatus, type ErrorCode } from '../errors.ts';
import {
  currentTracing,
  parentOf,
  SPAN_KEY,
  SPAN_STATUS_ERROR,
  SpanKind,
  type OtelContext,
  type OtelSpan,
  type SpanAttributeValue,
  type Tracing,
} from './otel-globals.ts';

/** Names of the attributes cellgate adds beside the HTTP semantic conventions. */
export const CellgateAttributes = {
  /** Entity reference of a governed resource, e.g. `crm.Invoice@v1`. */
  resourceType: 'cellgate.resource.type',
  /** The operation: `create`, `get`, `list`, `update`, `delete`, `rollback`, `versions`, `listAudit`, `getAudit`, `events`, or a contract route's operation id. */
  operation: 'cellgate.operation',
  /** Version of the record after the operation (single-record answers). */
  version: 'cellgate.record.version',
  /** `ok`, or the error code of the answer (`CONFLICT`, `NOT_FOUND`, …). */
  outcome: 'cellgate.outcome',
} as const;

/** What every request of one route shares: the span name and the attributes known before it runs. */
export interface SpanTemplate {
  /** `{method} {route}`, the HTTP semantic conventions' server span name. */
  readonly name: string;
  /** Shared by every span of the route (the SDK copies them), so a request allocates none. */
  readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
}

/**
 * The template of a route: `http.request.method`, `http.route` and the cellgate attributes given.
 *
 * @example
 * spanTemplate('PATCH', '/v1/workspaces/{workspaceId}/invoices/{id}', { 'cellgate.operation': 'update' });
 */
export function spanTemplate(method: string, route: string, attributes: Record<string, SpanAttributeValue> = {}): SpanTemplate {
  return Object.freeze({ name: `${method} ${route}`, attributes: Object.freeze({ 'http.request.method': method, 'http.route': route, ...attributes }) });
}

/** A request's span while it runs. */
export interface RequestSpan {
  readonly span: OtelSpan;
  /** The parent's context with this span in it: the parent of spans started inside the request. */
  readonly context: OtelContext;
  /** Error code of a failure the request answered (see {@link noteFailure}). */
  code: string | undefined;
}

/** Spans of requests in flight, by request: how the choke points that catch errors reach them. */
const live = new WeakMap<Request, RequestSpan>();

/** The span of a request in flight, if it is traced. */
export function requestSpanOf(request: Request): RequestSpan | undefined {
  return live.get(request);
}

/** The wire code of a thrown value: its own for a `CellgateError`, `INTERNAL_ERROR` for anything else. */
function codeOf(error: unknown): ErrorCode {
  return error instanceof CellgateError ? error.code : 'INTERNAL_ERROR';
}

/**
 * Records the error a request's choke point turned into its answer, so the span's outcome is
 * the error code and not only the status. One `WeakMap` look-up; nothing when untraced.
 */
export function noteFailure(request: Request | undefined, error: unknown): void {
  if (request === undefined) return;
  const state = live.get(request);
  if (state !== undefined) state.code = codeOf(error);
}

/** Codes that are the only one with their status (for answers whose error was not noted). */
const CODE_OF_STATUS = new Map<number, string>();
for (const [code, status] of Object.entries(errorStatus)) CODE_OF_STATUS.set(status, CODE_OF_STATUS.has(status) ? `HTTP_${status}` : code);

/** Ends a span with its outcome: `ok` without a code; with one, status ERROR carrying the code (and `error.type`). */
export function endSpan(span: OtelSpan, code: string | undefined): void {
  if (code === undefined) {
    span.setAttribute(CellgateAttributes.outcome, 'ok');
  } else {
    span.setAttribute(CellgateAttributes.outcome, code);
    span.setAttribute('error.type', code);
    span.setStatus({ code: SPAN_STATUS_ERROR, message: code });
  }
  span.end();
}

/** Ends a request's span with the answer's status; an error answer's outcome is its noted code, else the one code of its status. */
function end(state: RequestSpan, status: number): void {
  state.span.setAttribute('http.response.status_code', status);
  endSpan(state.span, status < 400 ? undefined : (state.code ?? CODE_OF_STATUS.get(status) ?? `HTTP_${status}`));
}

/**
 * Runs `run` for `request` inside a new span of `template`: a SERVER span when cellgate is where
 * the request enters the trace, an INTERNAL one under the host's own server span. A thrown error
 * ends the span with its code and is thrown on.
 */
export async function traceRequest(
  tracing: Tracing,
  request: Request,
  template: SpanTemplate,
  run: (state: RequestSpan) => Promise<Response>,
): Promise<Response> {
  const parent = parentOf(tracing, request.headers.get('traceparent'));
  const span = tracing.tracer.startSpan(
    template.name,
    { kind: parent.local ? SpanKind.INTERNAL : SpanKind.SERVER, attributes: template.attributes },
    parent.context,
  );
  // HEAD is served by the GET route: the method attribute is the request's own.
  if (request.method !== template.attributes['http.request.method']) span.setAttribute('http.request.method', request.method);
  const state: RequestSpan = { span, context: parent.context.setValue(SPAN_KEY, span), code: undefined };
  live.set(request, state);
  try {
    const response = await (tracing.contexts === undefined ? run(state) : tracing.contexts.with(state.context, () => run(state)));
    end(state, response.status);
    return response;
  } catch (error) {
    state.code = codeOf(error);
    end(state, error instanceof CellgateError ? error.status : 500);
    throw error;
  } finally {
    live.delete(request);
  }
}

/**
 * Runs `run` in a span of `template` when an SDK is registered, else as it is (one global read,
 * no allocation). `run` gets the span's state when traced.
 */
export function traced(request: Request, template: SpanTemplate, run: (state?: RequestSpan) => Promise<Response>): Promise<Response> {
  const tracing = currentTracing();
  return tracing === undefined ? run() : traceRequest(tracing, request, template, run);
}

/**
 * A route runner traced with `template` (see {@link traced}); untraced requests go straight to
 * `run`, allocating nothing. `params` (a route's path parameters) is passed through as it is.
 */
export function withSpan<Q extends Request, P = undefined>(
  template: SpanTemplate,
  run: (request: Q, params?: P) => Promise<Response>,
): (request: Q, params?: P) => Promise<Response> {
  return (request, params) => {
    const tracing = currentTracing();
    return tracing === undefined ? run(request, params) : traceRequest(tracing, request, template, () => run(request, params));
  };
}

/** A route pattern as an `http.route` (`/schemas/:name` → `/schemas/{name}`). */
export function routeOfPattern(pattern: string): string {
  return pattern.replace(/:(\w+)\+?/g, '{$1}');
}

const INVALID_TRACE_ID = '0'.repeat(32);

/**
 * Puts the span's trace id in the request metadata, so the audit record and the event of a write
 * carry the trace the span belongs to (with a `traceparent` and no host instrumentation, the same
 * id the header carried). A no-op tracer's invalid (all-zero) id is left out.
 */
export function adoptTraceId(meta: { traceId?: string | null } | undefined, state: RequestSpan): void {
  const { traceId } = state.span.spanContext();
  if (meta !== undefined && traceId !== INVALID_TRACE_ID) meta.traceId = traceId;
}
