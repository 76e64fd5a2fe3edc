/**
 * The probe routes the adapter conformance suite mounts next to the real handlers: each isolates
 * one conversion duty (echo of what arrived, a body read by the core's reader, several cookies, a
 * held stream, a stream that fails half-way, a request that waits for its client to go away, a
 * handler that fails).
 */
import { createFetchHandler, type FetchHandler } from '../http/handler.ts';
import { readTextBody } from '../http/body.ts';
import { clientAddress } from '../http/client-address.ts';
import { CellgateError } from '../errors.ts';
import { jsonResponse } from '../http/responses.ts';

/** The probe handler plus the state the cases observe. */
export interface Probe {
  handler: FetchHandler;
  /** Resolves with the abort reason once a `/__probe/wait` request's signal aborted. */
  aborted(): Promise<void>;
  /** Lets a held `/__probe/stream` produce its remaining chunks. */
  release(): void;
  /**
   * Resolves with how the core's body reader ended for the first `/__probe/read` request: `read`,
   * or the status and code of the error it threw (`400 BAD_REQUEST` for a client that hung up).
   */
  bodyRead(): Promise<string>;
  /** Errors passed to the adapter hook under test, if the runner wires it. */
  errors: unknown[];
}

/** Builds a fresh probe (one per suite). */
export function createProbe(): Probe {
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<void>((resolve) => (onAbort = resolve));
  let onRelease: () => void = () => undefined;
  let released = new Promise<void>((resolve) => (onRelease = resolve));
  let onBodyRead: (outcome: string) => void = () => undefined;
  const bodyRead = new Promise<string>((resolve) => (onBodyRead = resolve));
  const encoder = new TextEncoder();

  const routes: Record<string, (request: Request, url: URL) => Promise<Response> | Response> = {
    async echo(request, url) {
      const body = request.body ? await new Response(request.body).text() : null;
      return jsonResponse({
        method: request.method,
        path: url.pathname,
        // The target as the core reads it (routers slice `request.url`; they do not parse it again).
        target: request.url.slice(request.url.indexOf('/', request.url.indexOf('//') + 2)),
        query: [...url.searchParams],
        contentType: request.headers.get('content-type'),
        contentLength: request.headers.get('content-length'),
        multi: request.headers.get('x-multi'),
        peer: clientAddress(request) ?? null,
        body,
      });
    },
    async read(request) {
      try {
        await readTextBody(request);
        onBodyRead('read');
      } catch (error) {
        onBodyRead(error instanceof CellgateError ? `${error.status} ${error.code}` : `not a CellgateError: ${String(error)}`);
        throw error;
      }
      return jsonResponse({ read: true });
    },
    cookies: () => {
      const headers = new Headers({ 'content-type': 'text/plain' });
      for (const name of ['a', 'b', 'c']) headers.append('set-cookie', `${name}=${name}1; Path=/; HttpOnly`);
      return new Response('cookies', { headers });
    },
    stream: () => {
      let sent = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent === 1) await released;
            if (sent === 4) return controller.close();
            controller.enqueue(encoder.encode(`chunk-${sent++};`));
          },
        }),
        { headers: { 'content-type': 'text/plain; charset=utf-8' } },
      );
    },
    large: (_request, url) => {
      const chunks = Number(url.searchParams.get('chunks') ?? '64');
      const chunk = new Uint8Array(64 * 1024).fill(120);
      let sent = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ === chunks) controller.close();
            else controller.enqueue(chunk.slice());
          },
        }),
        { headers: { 'content-type': 'application/octet-stream' } },
      );
    },
    broken: () => {
      // A streamed answer whose source fails after its first chunk (a database lost mid-list).
      let sent = false;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent) {
              await new Promise((resolve) => setTimeout(resolve, 10));
              throw new Error('probe stream failure');
            }
            sent = true;
            controller.enqueue(encoder.encode('{"data":['));
          },
        }),
        { headers: { 'content-type': 'application/json; charset=utf-8' } },
      );
    },
    wait: (request) =>
      new Promise<Response>((resolve) => {
        const done = () => {
          onAbort();
          resolve(new Response('aborted'));
        };
        if (request.signal.aborted) done();
        else request.signal.addEventListener('abort', done, { once: true });
      }),
    throw: () => {
      throw new Error('probe failure');
    },
  };

  const handler = createFetchHandler(async (request) => {
    const url = new URL(request.url);
    const match = /^\/__probe\/(\w+)$/.exec(url.pathname);
    const route = match ? routes[match[1]!] : undefined;
    return route ? route(request, url) : undefined;
  });
  return {
    handler,
    aborted: () => aborted,
    bodyRead: () => bodyRead,
    release: () => {
      onRelease();
      released = Promise.resolve();
    },
    errors: [],
  };
}
