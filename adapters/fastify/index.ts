/**
 * `cellgate/adapters/fastify`: a Fastify plugin that serves a cellgate handler. It answers from an
 * `onRequest` hook (no routes of its own, so it never clashes with the host's `GET /` or `/*`),
 * before Fastify parses the body: the core reads the raw stream itself with its byte limit.
 * Unmatched requests go on to the host's routes and not-found handler; answers go through
 * `reply.send`, so Fastify's `onSend`/`onResponse` hooks and request logging keep working.
 *
 * @example
 * import Fastify from 'fastify';
 * import { createContractHandler } from 'cellgate';
 * import { cellgatePlugin } from 'cellgate/adapters/fastify';
 *
 * const app = Fastify({ logger: true });
 * await app.register(cellgatePlugin, { handler: createContractHandler({ basePath: '/platform' }), prefix: '/platform' });
 * await app.listen({ port: 3000 });
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { errorResponse, LIGHT_RESPONSES, lightResponseParts, type FetchHandler } from 'cellgate/adapter-kit';
import { bufferedBody, mountedMatch, normalizeMountPath, toAbortableRequest, type NodeAdapterOptions } from 'cellgate/adapters/node';

/** Options of {@link cellgatePlugin}; `prefix` is Fastify's own register option. */
export interface CellgatePluginOptions extends NodeAdapterOptions {
  /** The cellgate handler to serve (give it the same `basePath` as the plugin's `prefix`). */
  handler: FetchHandler;
  /**
   * Mount path, e.g. `/platform`: only requests below it reach the handler. Give the handler the
   * same `basePath`; without it the routes are still served below the prefix, with a one-time hint.
   * @default ''
   */
  prefix?: string;
}

/** Hands a `Response` to Fastify: status, every header (cookies kept apart), then the body. */
function send(reply: FastifyReply, response: Response): FastifyReply {
  // The core's light responses: status, header list and text, without building the real Response.
  const parts = lightResponseParts(response);
  if (parts) {
    reply.code(parts.status);
    let cookies: string[] | undefined;
    for (const [name, value] of parts.headers) {
      if (name === 'set-cookie') (cookies ??= []).push(value);
      else reply.header(name, value);
    }
    if (cookies) reply.header('set-cookie', cookies);
    return reply.send(parts.body);
  }
  reply.code(response.status);
  for (const [name, value] of response.headers) if (name !== 'set-cookie') reply.header(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  // A body already in memory goes out in one write with its length; a stream keeps backpressure.
  const known = bufferedBody(response);
  if (known !== undefined) return reply.send(typeof known === 'string' ? known : Buffer.from(known.buffer, known.byteOffset, known.byteLength));
  return reply.send(response.body);
}

/**
 * The request to hand the core: `HEAD` is asked as `GET` so the answer carries the GET length. The
 * GET keeps the light-answer mark of the Node request it stands for: a light answer's text goes to
 * Fastify whole, which then sends its length (a real `Response`'s body may reach it as a stream,
 * whose length it cannot know; so on Node 24).
 */
function asked(request: Request): Request {
  if (request.method !== 'HEAD') return request;
  const get = new Request(request.url, { method: 'GET', headers: request.headers, signal: request.signal });
  return Object.defineProperty(get, LIGHT_RESPONSES, { value: true });
}

/**
 * The plugin. Register it with the handler (and optionally a `prefix`).
 *
 * It answers from an `onRequest` hook, before Fastify routes the request or parses its body, and
 * registers no route: a host's own `GET /` or `/*` fallback coexists with it whatever the
 * registration order, the core reads the untouched body stream with its own byte limit, and
 * requests it does not own go on to the host's routes or its not-found handler. It is not
 * encapsulated (hooks of a child context would only see that context's routes), so it sees every
 * request of the context it is registered in; under a `prefix`, only those below it.
 *
 * @example cellgatePlugin
 * import Fastify from 'fastify';
 * import { createContractHandler } from 'cellgate';
 * import { cellgatePlugin } from 'cellgate/adapters/fastify';
 *
 * const app = Fastify();
 * await app.register(cellgatePlugin, { handler: createContractHandler(), onError: (error) => app.log.error(error) });
 * await app.listen({ port: 3000 });
 */
export const cellgatePlugin: FastifyPluginAsync<CellgatePluginOptions> = async (fastify, options) => {
  const { handler, prefix, ...adapter } = options;
  const mountPath = normalizeMountPath(prefix);
  const match = mountedMatch(handler, 'fastify');

  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    let fetchRequest: Request | undefined;
    try {
      // Fastify leaves `raw.url` whole under a prefix, which is what the core (owning basePath) needs.
      fetchRequest = toAbortableRequest(request.raw, reply.raw, adapter);
      const response = await match(asked(fetchRequest), mountPath, (url) => asked(toAbortableRequest(request.raw, reply.raw, { ...adapter, url })));
      if (!response) return;
      return send(reply, response);
    } catch (error) {
      return send(reply, errorResponse(error, { onError: adapter.onError, request: fetchRequest }));
    }
  });
};
// Shares the context it is registered in (what `fastify-plugin` does), so the hook sees the
// host's routes and not-found requests, and the register `prefix` does not wrap it.
Object.assign(cellgatePlugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'cellgate' });
