/**
 * A lightweight `Response` for answers whose body is already complete in memory (every JSON
 * answer): a string, or UTF-8 bytes for answers that never change (encoded once, not per request:
 * a JSON text with one non-ASCII character is a two-byte string, and encoding ~8 KB of it per
 * request cost more than the rest of a cached `GET`).
 *
 * Why: on Node 20, constructing an undici `Response` costs tens of microseconds, most of it the
 * `ReadableStream` it creates for every body — more than the rest of a cached `GET` costs. A light
 * response only records status, a header list and the text; the real `Response` is built (once,
 * memoised) the first time anything other than `status`, `ok`, `statusText` or `headers` is
 * touched, and every other member delegates to it, so it behaves exactly like a real one. The Node
 * adapters read {@link lightResponseParts} and write the text directly, so on the hot path the real
 * `Response` is never built. (The technique is the one `@hono/node-server` uses; this does not
 * replace the global `Response`.)
 *
 * Headers: the first read of `headers` creates a real, mutable `Headers` that becomes the source of
 * truth (the adapter writes what it holds); once the real `Response` exists, `headers` is that
 * response's own `Headers`, which starts as a copy of the earlier one.
 *
 * Runtime-neutral: no `node:*` imports.
 */

/** The constructor light responses chain to and materialise with (the global at load time). */
const NativeResponse = globalThis.Response;

/** Statuses whose Response must have a null body, and the valid range: the real constructor decides those. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

const utf8 = new TextEncoder();

/**
 * The UTF-8 bytes of a body that will be served many times. Encoding is paid once here instead of
 * by the socket on every write (a JSON text with any non-ASCII character is a two-byte string,
 * which Node re-encodes, and measures, per write).
 */
export function encodeOnce(text: string): Uint8Array {
  return utf8.encode(text);
}

/** What the adapters write on the fast path. */
export interface LightResponseParts {
  status: number;
  /** Lower-case names; `set-cookie` may repeat, one entry per cookie. Shared: read, never modify. */
  headers: ReadonlyArray<readonly [string, string]>;
  /** Text, or bytes that are shared between answers: write them, never modify them. */
  body: string | Uint8Array;
}

type HeaderList = ReadonlyArray<readonly [string, string]>;

/** Name of the header that stops browsers from guessing a content type other than the declared one. */
const NOSNIFF = 'x-content-type-options';

/**
 * Headers every cellgate answer carries (`X-Content-Type-Options: nosniff`): a JSON error that
 * echoes client text can never be sniffed into HTML or script. {@link lightResponse} adds them, and
 * the handler adds them to any other `Response` (see `handler.ts`).
 */
export const SECURITY_HEADERS: HeaderList = [[NOSNIFF, 'nosniff']];

/**
 * `headers` with `SECURITY_HEADERS`: a `Headers` is completed in place; a list is copied (it is
 * shared, never mutated). The copy is a few entries, cheaper than remembering copies per list:
 * a cache keyed by the list grew by one entry per request for callers that build their list per
 * call, which kept the garbage collector busy.
 */
function withSecurityHeaders<T extends HeaderList | Headers>(headers: T): T {
  if (headers instanceof Headers) {
    if (!headers.has(NOSNIFF)) headers.set(NOSNIFF, 'nosniff');
    return headers;
  }
  if ((headers as HeaderList).some(([name]) => name === NOSNIFF)) return headers;
  return [...(headers as HeaderList), ...SECURITY_HEADERS] as unknown as T;
}

class LightResponse {
  #status: number;
  #body: string | Uint8Array;
  /** Shared and never mutated: copied into {@link LightResponse.#headers} when `headers` is read. */
  #list: HeaderList | undefined;
  #headers: Headers | undefined;
  #native: Response | undefined;

  constructor(body: string | Uint8Array, status: number, headers: HeaderList | Headers) {
    this.#body = body;
    this.#status = status;
    if (headers instanceof Headers) this.#headers = headers;
    else this.#list = headers;
  }

  /** The real Response, built on first use. */
  static materialise(self: LightResponse): Response {
    // A byte body is copied by the constructor, so the shared bytes stay untouched.
    return (self.#native ??= new NativeResponse(self.#body as BodyInit, {
      status: self.#status,
      headers: (self.#headers ?? self.#list) as HeadersInit,
    }));
  }

  static is(value: unknown): boolean {
    return typeof value === 'object' && value !== null && #native in value;
  }

  static parts(value: unknown): LightResponseParts | undefined {
    if (typeof value !== 'object' || value === null || !(#native in value)) return undefined;
    const self = value as LightResponse;
    if (self.#native) return undefined;
    // The shared list as it is when nobody touched `headers` (the common case): no copy.
    const headers: ReadonlyArray<readonly [string, string]> = self.#headers ? [...self.#headers] : self.#list!;
    return { status: self.#status, headers, body: self.#body };
  }

  get status(): number {
    return this.#status;
  }

  get ok(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }

  get statusText(): string {
    return this.#native ? this.#native.statusText : '';
  }

  get headers(): Headers {
    if (this.#native) return this.#native.headers;
    return (this.#headers ??= new Headers(this.#list as HeadersInit));
  }
}

// Every other member of Response.prototype (body, bodyUsed, type, url, redirected, text(), json(),
// clone(), …, whatever this runtime has) delegates to the real Response.
// The whole chain up to Object.prototype is covered, in case the global at load time was itself a
// subclass or wrapper of the runtime's Response.
const delegated = new Map<string, PropertyDescriptor>();
for (let proto = NativeResponse.prototype as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
  for (const key of Object.getOwnPropertyNames(proto)) if (!delegated.has(key)) delegated.set(key, Object.getOwnPropertyDescriptor(proto, key)!);
}
const cheap = new Set(['constructor', 'status', 'ok', 'statusText', 'headers']);
for (const [key, descriptor] of delegated) {
  if (cheap.has(key)) continue;
  if (descriptor.get) {
    const get = descriptor.get;
    Object.defineProperty(LightResponse.prototype, key, {
      configurable: true,
      enumerable: descriptor.enumerable ?? false,
      get(this: LightResponse) {
        return get.call(LightResponse.materialise(this));
      },
    });
  } else if (typeof descriptor.value === 'function') {
    const method = descriptor.value as (...args: unknown[]) => unknown;
    Object.defineProperty(LightResponse.prototype, key, {
      configurable: true,
      enumerable: descriptor.enumerable ?? false,
      writable: true,
      value: function (this: LightResponse, ...args: unknown[]) {
        return method.apply(LightResponse.materialise(this), args);
      },
    });
  }
}
Object.defineProperty(LightResponse.prototype, Symbol.for('nodejs.util.inspect.custom'), {
  value(this: LightResponse) {
    return LightResponse.parts(this) ?? LightResponse.materialise(this);
  },
});
// `instanceof Response` holds; Symbol.toStringTag ('Response') is inherited.
Object.setPrototypeOf(LightResponse.prototype, NativeResponse.prototype);

/**
 * Headers for another `Response` constructor: a header list without repeated names becomes a plain
 * object, which lightweight host Responses (`@hono/node-server`'s) write without building a
 * `Headers`; anything else is passed as it is.
 */
function headersInit(headers: HeaderList | Headers): HeadersInit {
  if (headers instanceof Headers) return headers;
  const record: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (Object.hasOwn(record, name)) return headers as HeadersInit;
    record[name] = value;
  }
  return record;
}

/**
 * A `Response` with a text (or UTF-8 bytes) body that only becomes a real undici `Response` when
 * something needs one. It always carries `SECURITY_HEADERS`. Bytes may be shared between answers (they are never written to). `headers` is a header list (shared, never mutated: it is copied on first access) or a
 * `Headers` the response takes over.
 *
 * If the global `Response` has been replaced since load (e.g. `@hono/node-server` installs its own
 * lightweight one), the global is used instead, so `instanceof Response` and that host's own fast
 * path keep working. A body that is not a string (`JSON.stringify(undefined)`), null-body statuses
 * and out-of-range statuses go to the real constructor too (it answers or throws exactly as before).
 *
 * @example
 * lightResponse('{"ok":true}', 200, [['content-type', 'application/json; charset=utf-8']]);
 */
export function lightResponse(body: string | Uint8Array, status: number, given: HeaderList | Headers): Response {
  const headers = withSecurityHeaders(given);
  // `JSON.stringify(undefined)` is `undefined`: a null-body answer, as the real constructor makes it.
  if (
    (typeof body !== 'string' && !(body instanceof Uint8Array)) ||
    globalThis.Response !== NativeResponse ||
    NULL_BODY_STATUS.has(status) ||
    !(status >= 200 && status <= 599) ||
    !Number.isInteger(status)
  ) {
    return new globalThis.Response(body as BodyInit | null, { status, headers: headersInit(headers) });
  }
  return new LightResponse(body, status, headers) as unknown as Response;
}

/**
 * The mark of a request whose adapter writes light responses itself (`Symbol.for`, so copies of
 * the package agree): a request that answers `true` under it gets the core's answers as they are;
 * any other gets a real `Response` (see {@link answerFor}). The Node adapters' requests carry it.
 *
 * Why a mark on the request rather than a light answer for everyone: a light response is an
 * ordinary object that only behaves like a `Response`, and a runtime that serves the answer itself
 * checks for its own class (Bun answers a placeholder page, Deno a 500, workerd refuses it), so
 * only a caller that reads {@link lightResponseParts} may be handed one.
 */
export const LIGHT_RESPONSES: unique symbol = Symbol.for('cellgate.http.lightResponses');

/** A request that accepts light responses (see {@link LIGHT_RESPONSES}). */
export interface LightResponseRequest extends Request {
  readonly [LIGHT_RESPONSES]: true;
}

/**
 * The answer `request` gets: `response` itself when the request carries {@link LIGHT_RESPONSES},
 * otherwise a real `Response` of this runtime (a light one is built into its real `Response`,
 * which it memoises; any other response is returned as it is). With no request, a real one too.
 */
export function answerFor(request: Request | undefined, response: Response): Response {
  if (request !== undefined && (request as Partial<LightResponseRequest>)[LIGHT_RESPONSES] === true) return response;
  return LightResponse.is(response) ? LightResponse.materialise(response as unknown as LightResponse) : response;
}

/**
 * For adapters (`cellgate/adapter-kit`): status, header list and text of a light response that can
 * still be written directly — `undefined` for any other `Response`, and for a light one whose real
 * `Response` has been built (its body may have been read or handed out).
 */
export function lightResponseParts(response: unknown): LightResponseParts | undefined {
  return LightResponse.parts(response);
}

/**
 * True for a response made by {@link lightResponse} (which always carries the security
 * headers), so the handler does not build its `Headers` just to check them.
 */
export function isLightResponse(response: unknown): boolean {
  return LightResponse.is(response);
}
