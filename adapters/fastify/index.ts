/**
 * `cellgate/adapters/fastify`: a Fastify plugin that serves a cellgate handler. It registers
 * catch-all routes in its own encapsulated context, with a content-type parser that hands the raw
 * body stream to the core untouched (no double parsing; the core enforces its byte limit).
 * Unmatched requests go to Fastify's not-found handler; answers go through `reply.send`, so
 * Fastify's hooks (`onSend`, `onResponse`) and request logging keep working.
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
import { errorResponse, lightResponseParts, type FetchHandler } from 'cellgate';
import { bufferedBody, toAbortableRequest, type NodeAdapterOptions } from 'cellgate/adapters/node';

/** Options of {@link cellgatePlugin}; `prefix` is Fastify's own register option. */
export interface CellgatePluginOptions extends NodeAdapterOptions {
  /** The cellgate handler to serve (give it the same `basePath` as the plugin's `prefix`). */
  handler: FetchHandler;
  /** Mount path, e.g. `/platform` (Fastify's register option). @default '' */
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
 * The plugin. Register it with the handler (and optionally a `prefix`).
 *
 * @example
 * await app.register(cellgatePlugin, { handler: composeHandlers(contract, customers), onError: (e) => app.log.error(e) });
 */
export const cellgatePlugin: FastifyPluginAsync<CellgatePluginOptions> = async (fastify, options) => {
  const { handler, prefix: _prefix, ...adapter } = options;
  // Scoped to this plugin: the core reads the stream itself, with its own limit and errors.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    let fetchRequest: Request | undefined;
    try {
      // Fastify leaves `raw.url` whole under a prefix, which is what the core (owning basePath) needs.
      fetchRequest = toAbortableRequest(request.raw, reply.raw, adapter);
      const response = await handler.match(fetchRequest);
      if (!response) return reply.callNotFound();
      return send(reply, response);
    } catch (error) {
      return send(reply, errorResponse(error, { onError: adapter.onError, request: fetchRequest }));
    }
  };
  fastify.all('/', serve);
  fastify.all('/*', serve);
};
