/**
 * OpenTelemetry without importing `@opentelemetry/api` (docs/observability.md#how-cellgate-finds-opentelemetry).
 *
 * Every 1.x copy of the API keeps what the application registered (its tracer provider and context
 * manager) on one global object, `globalThis[Symbol.for('opentelemetry.js.api.1')]`; this is how two
 * copies of the API in one process see the same SDK. cellgate reads that object on each request
 * instead of importing the package: nothing to install or bundle for hosts without OpenTelemetry,
 * no import that fails, nothing loaded asynchronously, and an SDK registered after cellgate was
 * built is still found. Without a registered tracer provider every hook is one property read.
 *
 * The shapes below are the parts of the API's stable 1.x interfaces cellgate uses, written out
 * structurally so the published types never name the optional package.
 */

/** A span attribute value (the scalar subset cellgate writes). */
export type SpanAttributeValue = string | number | boolean;

/** The identity of a span (`SpanContext` of the API). */
export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
}

/** The part of the API's `Span` cellgate calls. */
export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: SpanAttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  updateName(name: string): unknown;
  end(): void;
  isRecording(): boolean;
}

/** The API's immutable `Context`. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

/** The part of the API's `Tracer` cellgate calls. */
export interface OtelTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: Readonly<Record<string, SpanAttributeValue>> }, context?: OtelContext): OtelSpan;
}

/** The part of the API's `ContextManager` cellgate calls. */
export interface OtelContextManager {
  active(): OtelContext;
  with<R>(context: OtelContext, fn: () => R): R;
}

/** What the API registers on its global object. */
interface OtelGlobals {
  trace?: { getTracer(name: string, version?: string): OtelTracer };
  context?: OtelContextManager;
}

/** The key of the API's global object for every 1.x version. */
const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');

/** The context key of the active span (the API derives it with `Symbol.for` too). */
export const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** `SpanKind` values of the API. */
export const SpanKind = { INTERNAL: 0, SERVER: 1 } as const;

/** `SpanStatusCode.ERROR` of the API. */
export const SPAN_STATUS_ERROR = 2;

/** Name of the tracer (the instrumentation scope) of every cellgate span. */
export const TRACER_NAME = 'cellgate';

/** A `Context` for hosts whose SDK registered no context manager (the API's `ROOT_CONTEXT` is not reachable without importing it). */
class PlainContext implements OtelContext {
  readonly #values: ReadonlyMap<symbol, unknown>;
  constructor(values: ReadonlyMap<symbol, unknown> = new Map()) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): OtelContext {
    return new PlainContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): OtelContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new PlainContext(values);
  }
}

/** The empty context. */
export const ROOT_CONTEXT: OtelContext = new PlainContext();

/** The tracer and context manager of the registered SDK, when there is one. */
export interface Tracing {
  tracer: OtelTracer;
  /** Absent when the SDK registered no context manager: contexts are then passed explicitly. */
  contexts: OtelContextManager | undefined;
}

let cachedProvider: unknown;
let cachedContexts: unknown;
let cached: Tracing | undefined;

/**
 * The registered SDK's tracing, or `undefined` when no tracer provider is registered (then
 * cellgate creates no span and allocates nothing). The tracer is asked for once per provider.
 */
export function currentTracing(): Tracing | undefined {
  const globals = (globalThis as Record<symbol, OtelGlobals | undefined>)[GLOBAL_KEY];
  const provider = globals?.trace;
  if (provider === undefined || typeof provider.getTracer !== 'function') return undefined;
  const contexts = typeof globals!.context?.active === 'function' ? globals!.context : undefined;
  if (provider !== cachedProvider || contexts !== cachedContexts) {
    cachedProvider = provider;
    cachedContexts = contexts;
    cached = { tracer: provider.getTracer(TRACER_NAME), contexts };
  }
  return cached;
}

/** A span that only carries a remote parent's identity (the API's `NonRecordingSpan`). */
function remoteSpan(spanContext: OtelSpanContext): OtelSpan {
  return {
    spanContext: () => spanContext,
    setAttribute: () => undefined,
    setStatus: () => undefined,
    updateName: () => undefined,
    end: () => undefined,
    isRecording: () => false,
  };
}

/** A W3C `traceparent`: version, trace id, parent span id, flags (lower-case hex only). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** Longest `traceparent` looked at (55 characters, plus room for a future version's fields). */
const MAX_TRACEPARENT_LENGTH = 256;

/** The remote parent of a valid `traceparent` header (all-zero ids and version ff are invalid), else undefined. */
export function remoteParentOf(header: string | null): OtelSpanContext | undefined {
  if (header === null || header.length > MAX_TRACEPARENT_LENGTH) return undefined;
  const text = header.trim();
  const match = TRACEPARENT.exec(text.slice(0, 55));
  if (match === null || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  // Version 00 is exactly 55 characters; a later version may append fields after a dash.
  if (text.length > 55 && (match[1] === '00' || text[55] !== '-')) return undefined;
  return { traceId: match[2]!, spanId: match[3]!, traceFlags: Number.parseInt(match[4]!, 16) & 1, isRemote: true };
}

/**
 * The parent of a request's span: the active context when it holds a span (host HTTP
 * instrumentation already made the server span), else the request's `traceparent` as a remote
 * parent, else nothing. `local` says which, so the span's kind can follow (a second SERVER span
 * inside the host's would double-count the request).
 */
export function parentOf(tracing: Tracing, traceparent: string | null): { context: OtelContext; local: boolean } {
  const active = tracing.contexts?.active() ?? ROOT_CONTEXT;
  if (active.getValue(SPAN_KEY) !== undefined) return { context: active, local: true };
  const remote = remoteParentOf(traceparent);
  return { context: remote === undefined ? active : active.setValue(SPAN_KEY, remoteSpan(remote)), local: false };
}
