/** The Fastify host: the reference app registered with `cellgatePlugin`. */
import Fastify, { type FastifyInstance } from 'fastify';
import type { FetchHandler } from 'cellgate';
import { cellgatePlugin } from 'cellgate/adapters/fastify';
import { notFoundEnvelope, type MountedServer } from 'cellgate/host';

/** Builds the Fastify app serving `handler` (plus one route of its own). */
export async function createFastifyApp(handler: FetchHandler): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ from: 'fastify' }));
  await app.register(cellgatePlugin, { handler }); // unmatched requests reach the 404 below
  // The host's 404 in cellgate's envelope (Fastify sends no X-Powered-By of its own).
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .header('x-content-type-options', 'nosniff')
      .send(notFoundEnvelope(request.method, request.url.split('?', 1)[0]!)),
  );
  return app;
}

/** The host's server. */
export async function mountFastify(handler: FetchHandler): Promise<MountedServer> {
  const app = await createFastifyApp(handler);
  return {
    listen: async (port, host) => {
      await app.listen({ port, host });
      return app.server.address() as import('node:net').AddressInfo;
    },
    close: () => app.close(),
  };
}
