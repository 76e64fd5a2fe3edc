/**
 * `cellgate/adapters/node`: mount a cellgate handler on `node:http` (or anything that hands you an
 * `IncomingMessage` and a `ServerResponse`), plus the conversion helpers the Express, Fastify and
 * Next adapters share.
 *
 * @example
 * import { createServer } from 'node:http';
 * import { createContractHandler } from 'cellgate';
 * import { toNodeHandler } from 'cellgate/adapters/node';
 *
 * createServer(toNodeHandler(createContractHandler())).listen(3000);
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse, type FetchHandler } from 'cellgate/adapter-kit';
import { abortRequest, onSignalRead, toRequest, type ToRequestOptions } from './request.ts';
import { writeResponse } from './response.ts';
import type { MountedMatch } from './mount.ts';

export { abortRequest, toRequest, type ToRequestOptions } from './request.ts';
export { isUnder, mountedMatch, normalizeMountPath, type MountedMatch } from './mount.ts';
export { bufferedBody, readIfComplete, toNodeHeaders, writeResponse, type WriteResponseOptions } from './response.ts';

/** Options shared by every Node-based adapter. */
export interface NodeAdapterOptions {
  /**
   * Trust `X-Forwarded-Proto` / `X-Forwarded-Host` when building the request URL.
   * @default false
   */
  trustProxy?: boolean;
  /**
   * Scheme and host to put in every request URL instead of the socket's and the `Host` header's.
   * @example 'https://api.example.com'
   */
  origin?: string;
  /**
   * Called with any failure of the adapter itself (the core answers its own errors); the client
   * gets the envelope 500 with a correlation id.
   * @example onError: (error) => logger.error({ err: error }, 'cellgate adapter failure')
   */
  onError?: (error: unknown, request?: Request) => void;
}

/** A Node request listener, with Connect/Express's optional `next` for unmatched requests. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/** What {@link handleNodeRequest} needs beyond the Node objects. */
export interface HandleNodeRequestOptions extends NodeAdapterOptions, Pick<ToRequestOptions, 'url' | 'body'> {
  /** Called instead of answering 404 when no route matches; omitted: the core's 404 envelope. */
  next?: (() => void) | undefined;
  /** With `next`: the path the framework mounted the handler at, and the matcher that honours it. */
  mount?: { path: string; match: MountedMatch } | undefined;
}

/**
 * {@link toRequest} plus the disconnect wiring: when `res` closes before it finished, the
 * request's `signal` aborts. The listener is added when somebody first reads `signal` (a
 * disconnect before that is seen then). The socket's remote address is read by the core on demand.
 * A body a framework left on `req.body` is used once the stream is read.
 */
export function toAbortableRequest(req: IncomingMessage, res: ServerResponse, options: ToRequestOptions = {}): Request {
  const body = options.body ?? (req as IncomingMessage & { body?: unknown }).body;
  const request = toRequest(req, body === undefined ? options : { ...options, body });
  onSignalRead(request, () => {
    if (res.closed || res.destroyed) abortIfUnfinished(res, request);
    else res.once('close', () => abortIfUnfinished(res, request));
  });
  if (request.method !== 'GET' && request.method !== 'HEAD') res.once('finish', () => drainUnread(req));
  return request;
}

/** Aborts the request's `signal` when its answer closed before it was finished (the client left). */
function abortIfUnfinished(res: ServerResponse, request: Request): void {
  if (!res.writableFinished) abortRequest(request);
}

/** How long an unread request body (refused as too large, or never needed) may keep arriving. */
const DRAIN_MS = 500;

/**
 * After the answer went out, discards what is left of an unread request body so the connection can
 * be reused, and cuts the connection if the client keeps sending for longer than {@link DRAIN_MS}.
 */
function drainUnread(req: IncomingMessage): void {
  if (req.readableEnded || req.destroyed) return;
  const timer = setTimeout(() => req.socket?.destroy(), DRAIN_MS);
  timer.unref();
  req.once('end', () => clearTimeout(timer)).once('close', () => clearTimeout(timer));
  req.on('error', () => undefined);
  req.resume();
}

/**
 * Converts, dispatches and writes back one request: the body of every Node adapter. Resolves once
 * the response is written (or handed to `next`); never rejects.
 */
export async function handleNodeRequest(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  options: HandleNodeRequestOptions = {},
): Promise<void> {
  let request: Request | undefined;
  try {
    request = toAbortableRequest(req, res, options);
    const { mount } = options;
    const response = !options.next
      ? await handler(request)
      : mount
        ? await mount.match(request, mount.path, (url) => toAbortableRequest(req, res, { ...options, url }))
        : await handler.match(request);
    if (!response) return options.next?.();
    await writeResponse(res, response, { method: request.method });
  } catch (error) {
    try {
      if (res.headersSent) res.destroy();
      else await writeResponse(res, errorResponse(error, { onError: options.onError, request }));
    } catch {
      // The socket is already unusable; nothing left to tell the client.
    }
  }
}

/**
 * Wraps a cellgate handler as a `node:http` request listener. Given a third `next` argument (as
 * Connect-style servers do), unmatched requests go to `next()`; otherwise they get the core's 404.
 *
 * @example toNodeHandler
 * import { createServer } from 'node:http';
 * import { createContractHandler } from 'cellgate';
 * import { toNodeHandler } from 'cellgate/adapters/node';
 *
 * // Behind a proxy you trust, `trustProxy` takes the client address from X-Forwarded-For.
 * createServer(toNodeHandler(createContractHandler(), { trustProxy: true })).listen(3000);
 */
export function toNodeHandler(handler: FetchHandler, options: NodeAdapterOptions = {}): NodeHandler {
  return (req, res, next) => {
    void handleNodeRequest(handler, req, res, next ? { ...options, next: () => next() } : options);
  };
}
