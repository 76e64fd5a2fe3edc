/** Adapter conformance for Fastify 5 through `cellgatePlugin`. */
import Fastify from 'fastify';
import { cellgatePlugin } from 'cellgate/adapters/fastify';
import { runAdapterConformance } from 'cellgate/testing';

runAdapterConformance({
  name: 'fastify',
  skip: { parsedBody: 'the plugin installs its own pass-through body parser, so Fastify never parses a cellgate body' },
  start: async (handler, { prefix }) => {
    const app = Fastify({ logger: false });
    app.get('/__host/own', async (_request, reply) => reply.type('text/plain').send('host route'));
    await app.register(cellgatePlugin, { handler, ...(prefix ? { prefix } : {}) });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url, close: () => app.close() };
  },
});
