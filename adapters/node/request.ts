/**
 * `IncomingMessage` → `Request`, lazily. Building a full undici `Request` (and its `Headers`) for
 * every request costs more than the rest of a cached GET, so the adapter hands the core a
 * lightweight object that is `instanceof Request`, answers `method`, `url`, `headers.get/has` and
 * `signal` from the Node request directly, and builds a real `Request` only when a member that
 * needs one (`clone()`, `formData()`, `cache`, …) is touched. The body is streamed straight from
 * the socket; the core enforces the byte limit while reading it. The core's own body reads skip
 * the web stream: through `READ_BODY` they collect the socket's chunks directly (same limit, same
 * errors).
 */
import type { IncomingMessage } from 'node:http';
import { CLIENT_ADDRESS, LIGHT_RESPONSES, READ_BODY } from 'cellgate/adapter-kit';
import { NodeHeaders } from './headers.ts';

/** Options of {@link toRequest}. */
export interface ToRequestOptions {
  /**
   * The request target to use instead of `req.url`, e.g. Express's `req.originalUrl` when the
   * adapter is mounted under a prefix (the core owns `basePath`, so it needs the full path).
   * @default req.url
   */
  url?: string;
  /**
   * Scheme and host to use instead of the ones derived from the socket and the `Host` header.
   * @example 'https://api.example.com'
   */
  origin?: string;
  /**
   * Trust `X-Forwarded-Proto` and `X-Forwarded-Host` (set this only behind a proxy you control).
   * @default false
   */
  trustProxy?: boolean;
  /**
   * A body a framework already parsed (Express's `req.body` after `express.json()`). It is
   * re-serialised (JSON unless it is a string or bytes) with a matching `content-length`. Ignored
   * while the raw stream is still unread, which is then passed through untouched.
   */
  body?: unknown;
}

const HOST = /^[\w.-]+(:\d+)?$|^\[[\da-fA-F:.]+\](:\d+)?$/;
const kIncoming = Symbol('incoming');
const kReal = Symbol('real');
const kState = Symbol('state');

interface LazyState {
  method: string;
  url: string;
  /** Called when `signal` is first read: wires the client's disconnect to it (see `toAbortableRequest`). */
  onSignal?: (() => void) | undefined;
  headers?: Headers;
  controller?: AbortController;
  aborted?: unknown;
  body?: ReadableStream<Uint8Array> | null;
  parsed?: Uint8Array;
  /** The body was read whole through `READ_BODY` (the request counts as read). */
  consumed?: Uint8Array | null;
}

interface LazyRequest {
  [kIncoming]: IncomingMessage;
  [kState]: LazyState;
  [kReal]?: Request;
}

/** Builds the full URL of a Node request: scheme from the socket (or a trusted proxy), then host. */
function fullUrl(req: IncomingMessage, options: ToRequestOptions): string {
  const target = options.url ?? req.url ?? '/';
  if (target[0] !== '/') {
    try {
      return new URL(target).href;
    } catch {
      return `http://localhost/`;
    }
  }
  if (options.origin) return options.origin.replace(/\/$/, '') + target;
  let scheme = (req.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
  let host = req.headers.host;
  if (options.trustProxy) {
    const proto = req.headers['x-forwarded-proto'];
    const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',', 1)[0]?.trim().toLowerCase();
    if (first === 'http' || first === 'https') scheme = first;
    const forwardedHost = req.headers['x-forwarded-host'];
    const fh = (Array.isArray(forwardedHost) ? forwardedHost[0] : forwardedHost)?.split(',', 1)[0]?.trim();
    if (fh) host = fh;
  }
  const checked = checkHost(host);
  const url = `${scheme}://${checked.host}${target}`;
  // A target the WHATWG parser would rewrite (dot segments, characters it percent-encodes, an
  // upper-case host) goes through it, so a request answers the same here as through `new Request`.
  return isCanonical(target) && checked.canonical ? url : new URL(url).href;
}

/** What {@link checkHost} decided for a `Host` value. */
interface HostCheck {
  /** The host to put in the URL: the given one, or `localhost` when it is missing or malformed. */
  host: string;
  /** False when the WHATWG parser would rewrite it (upper case). */
  canonical: boolean;
}

/**
 * The last `Host` checked and its verdict. A connection sends the same `Host` on every request
 * and most servers see one or two values, so the two regular expressions run once per new value
 * instead of once per request (issue #33); a different value just replaces it.
 */
let lastHost: HostCheck & { given: string | undefined } = { given: undefined, host: 'localhost', canonical: true };

function checkHost(given: string | undefined): HostCheck {
  if (given === lastHost.given) return lastHost;
  const host = !given || !HOST.test(given) ? 'localhost' : given;
  lastHost = { given, host, canonical: !/[A-Z]/.test(host) };
  return lastHost;
}

/**
 * Whether the WHATWG URL parser leaves this origin-form target as it is: only characters it never
 * encodes, and no `.`/`..` segment (nor its `%2e` spelling) that it would resolve. One pass over
 * the characters; a false answer only costs the full parse.
 */
function isCanonical(target: string): boolean {
  for (let i = 0; i < target.length; i++) {
    const code = target.charCodeAt(i);
    // Allowed: ! $ % & ( ) * + , - . / 0-9 : ; = ? @ A-Z _ a-z ~ (not space " # ' < > \ ^ ` { | } or non-ASCII).
    if (code < 0x21 || code > 0x7e || code === 0x22 || code === 0x23 || code === 0x27 || code === 0x3c || code === 0x3e) return false;
    if (code === 0x5c || code === 0x5e || code === 0x60 || code === 0x7b || code === 0x7c || code === 0x7d) return false;
    if (code === 0x2e && target.charCodeAt(i - 1) === 0x2f) return false;
    if (code === 0x25 && target.charCodeAt(i + 1) === 0x32 && (target.charCodeAt(i + 2) | 0x20) === 0x65) return false;
  }
  return true;
}

function serialise(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  return new TextEncoder().encode(typeof body === 'string' ? body : (JSON.stringify(body) ?? ''));
}

const CLOSED_EARLY = 'Client connection closed before the body was read.';

/** What {@link onBody} reports. */
interface BodyListener {
  data(chunk: Buffer): void;
  end(): void;
  fail(error: unknown): void;
}

/**
 * The listener of a body being read, kept on the message itself. The four event handlers below
 * are then shared functions that find it through `this` (the emitter), rather than closures made
 * for every request: fewer allocations, and nothing for `keepNames` transforms (tsx, which runs
 * `npm start`) to rename per request (docs/architecture.md, "Performance model").
 */
const kListener = Symbol('bodyListener');

type ListenedMessage = IncomingMessage & { [kListener]?: BodyListener | undefined };

function onData(this: ListenedMessage, chunk: Buffer): void {
  this[kListener]?.data(chunk);
}

function onEnd(this: ListenedMessage): void {
  stopListening(this)?.end();
}

function onError(this: ListenedMessage, error: unknown): void {
  stopListening(this)?.fail(error ?? new Error(CLOSED_EARLY));
}

function onClose(this: ListenedMessage): void {
  if (!this.readableEnded) onError.call(this, new Error(CLOSED_EARLY));
}

/**
 * Listens to a request body until it ends, fails, or the connection closes before the end (a
 * failure too). {@link stopListening} stops earlier.
 */
function onBody(incoming: ListenedMessage, listener: BodyListener): void {
  incoming[kListener] = listener;
  incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
}

/** Stops what {@link onBody} started; returns the listener that was attached, if any. */
function stopListening(incoming: ListenedMessage): BodyListener | undefined {
  const listener = incoming[kListener];
  if (listener === undefined) return undefined;
  incoming[kListener] = undefined;
  incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
  return listener;
}

/** The size of a stream chunk, for the body stream's queuing strategy. */
const chunkSize = (chunk: Uint8Array): number => chunk.byteLength;

/** The request body as a web stream, pausing the socket while the core is not reading. */
function streamBody(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (incoming.readableEnded) return controller.close();
        onBody(incoming, {
          data(chunk) {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
          },
          end() {
            controller.close();
          },
          fail(error) {
            controller.error(error);
          },
        });
      },
      pull() {
        incoming.resume();
      },
      cancel() {
        // The core stopped reading (e.g. body over the limit): stop delivering; the adapter
        // discards the rest once the answer has been written.
        stopListening(incoming);
      },
    },
    { highWaterMark: 64 * 1024, size: chunkSize },
  );
}

/** Gathers a whole body for {@link collectBody}: one object per request, its methods shared. */
class BodyCollector implements BodyListener {
  readonly #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    private readonly incoming: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (bytes: Uint8Array | null) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  data(chunk: Buffer): void {
    this.#size += chunk.byteLength;
    if (this.#size <= this.limit) return void this.#chunks.push(chunk);
    stopListening(this.incoming);
    this.incoming.pause();
    this.resolve(null);
  }

  end(): void {
    const chunks = this.#chunks;
    this.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size));
  }

  fail(error: unknown): void {
    this.reject(error);
  }
}

/**
 * The whole request body from the socket's chunks, or `null` as soon as more than `limit` bytes
 * arrived (reading stops there; the adapter discards the rest after answering).
 */
function collectBody(incoming: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    if (incoming.readableEnded) return resolve(new Uint8Array(0));
    onBody(incoming, new BodyCollector(incoming, limit, resolve, reject));
    incoming.resume();
  });
}

/** `READ_BODY` of the lazy request: the body whole, without a web stream, unless one was handed out. */
function readBody(this: LazyRequest, limit: number): Promise<Uint8Array | null> | undefined {
  const s = state(this);
  if (this[kReal] || s.body !== undefined || s.consumed !== undefined) return undefined;
  if (s.method === 'GET' || s.method === 'HEAD') return Promise.resolve((s.consumed = new Uint8Array(0)));
  const read = s.parsed ? Promise.resolve(s.parsed.byteLength > limit ? null : s.parsed) : collectBody(this[kIncoming], limit);
  s.consumed = null;
  return read.then((bytes) => (s.consumed = bytes));
}

function state(request: LazyRequest): LazyState {
  return request[kState];
}

function bodyOf(request: LazyRequest): ReadableStream<Uint8Array> | null {
  const s = state(request);
  if (s.body !== undefined) return s.body;
  if (s.method === 'GET' || s.method === 'HEAD') return (s.body = null);
  if (s.parsed) {
    const bytes = s.parsed;
    return (s.body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (bytes.byteLength > 0) controller.enqueue(bytes);
        controller.close();
      },
    }));
  }
  return (s.body = streamBody(request[kIncoming]));
}

function signalOf(request: LazyRequest): AbortSignal {
  const s = state(request);
  if (!s.controller) {
    s.controller = new AbortController();
    if (s.aborted !== undefined) s.controller.abort(s.aborted);
    else s.onSignal?.();
  }
  return s.controller.signal;
}

function headersOf(request: LazyRequest): Headers {
  const s = state(request);
  return (s.headers ??= new NodeHeaders(request[kIncoming], s.parsed ? ['content-length', String(s.parsed.byteLength)] : undefined));
}

/** The real `Request`, built once, for the members the lightweight object does not answer itself. */
function realOf(request: LazyRequest): Request {
  const existing = request[kReal];
  if (existing) return existing;
  const s = state(request);
  if (s.consumed !== undefined) return (request[kReal] = readRequest(request, s));
  const body = bodyOf(request);
  const init: RequestInit & { duplex?: 'half' } = { method: s.method, headers: headersOf(request), signal: signalOf(request) };
  if (body) {
    init.body = body;
    init.duplex = 'half';
  }
  return (request[kReal] = new Request(s.url, init));
}

/**
 * The real `Request` of one whose body was read through `READ_BODY`: same members, body already
 * used (`bodyUsed` true, reading again rejects), exactly as after `text()` on a real one.
 */
function readRequest(request: LazyRequest, s: LazyState): Request {
  const init: RequestInit & { duplex?: 'half' } = { method: s.method, headers: headersOf(request), signal: signalOf(request) };
  if (s.method !== 'GET' && s.method !== 'HEAD') init.body = (s.consumed ?? new Uint8Array(0)) as BodyInit;
  const real = new Request(s.url, init);
  if (real.body) void real.arrayBuffer().catch(() => undefined);
  return real;
}

const prototype: object = Object.create(Request.prototype);
const own: PropertyDescriptorMap = {
  method: {
    get(this: LazyRequest) {
      return state(this).method;
    },
  },
  url: {
    get(this: LazyRequest) {
      return state(this).url;
    },
  },
  headers: {
    get(this: LazyRequest) {
      return headersOf(this);
    },
  },
  signal: {
    get(this: LazyRequest) {
      return signalOf(this);
    },
  },
  body: {
    get(this: LazyRequest) {
      return this[kReal] || state(this).consumed !== undefined ? realOf(this).body : bodyOf(this);
    },
  },
  bodyUsed: {
    get(this: LazyRequest) {
      if (this[kReal]) return this[kReal].bodyUsed;
      const s = state(this);
      return s.consumed !== undefined ? s.method !== 'GET' && s.method !== 'HEAD' : (s.body?.locked ?? false);
    },
  },
  [READ_BODY]: { value: readBody },
  // The core answers these requests with light responses, which `writeResponse` (and the Fastify
  // adapter) write without building a `Response` (docs/benchmarks.md); on the prototype, so it
  // costs nothing per request. `writeResponse` takes any other `Response` too.
  [LIGHT_RESPONSES]: { value: true },
  [CLIENT_ADDRESS]: {
    get(this: LazyRequest) {
      return this[kIncoming].socket?.remoteAddress;
    },
  },
};
for (const name of Object.getOwnPropertyNames(Request.prototype)) {
  if (name === 'constructor' || name in own) continue;
  const descriptor = Object.getOwnPropertyDescriptor(Request.prototype, name)!;
  own[name] =
    typeof descriptor.value === 'function'
      ? {
          value(this: LazyRequest, ...args: unknown[]) {
            return (realOf(this) as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
          },
        }
      : {
          get(this: LazyRequest) {
            return (realOf(this) as unknown as Record<string, unknown>)[name];
          },
        };
}
Object.defineProperties(prototype, own);

/**
 * Converts a Node request into a Fetch `Request` (a lightweight one, see the module header).
 *
 * @example
 * const request = toRequest(req, { url: req.originalUrl, body: req.body });
 * const response = await handler(request);
 */
export function toRequest(req: IncomingMessage, options: ToRequestOptions = {}): Request {
  const lazy = Object.create(prototype) as LazyRequest;
  lazy[kIncoming] = req;
  const s: LazyState = { method: (req.method ?? 'GET').toUpperCase(), url: fullUrl(req, options) };
  if (options.body !== undefined && (req.readableEnded || req.readableDidRead)) s.parsed = serialise(options.body);
  lazy[kState] = s;
  return lazy as unknown as Request;
}

/**
 * Runs `wire` the first time `request.signal` is read (at once if it already was), so the
 * disconnect listener costs nothing on the many requests whose signal nobody reads.
 */
export function onSignalRead(request: Request, wire: () => void): void {
  const s = (request as unknown as Partial<LazyRequest>)[kState];
  if (!s || s.controller) wire();
  else s.onSignal = wire;
}

/** Aborts `request.signal` of a request made by {@link toRequest} (the client went away). */
export function abortRequest(request: Request, reason: unknown = new Error('Client connection closed.')): void {
  const s = (request as unknown as Partial<LazyRequest>)[kState];
  if (!s || s.aborted !== undefined) return;
  s.aborted = reason;
  s.controller?.abort(reason);
}
