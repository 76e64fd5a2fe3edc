/** Adapter conformance for Hono on @hono/node-server through `toHono`. */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { toHono } from 'cellgate/adapters/hono';
import { runAdapterConformance } from 'cellgate/testing';

runAdapterConformance({
  name: 'hono',
  skip: { parsedBody: 'Hono hands middleware the untouched Fetch request; it never parses a body ahead of it' },
  start: async (handler, { prefix }) => {
    const app = new Hono();
    app.get('/__host/own', (c) => c.text('host route'));
    app.use(prefix ? `${prefix}/*` : '*', toHono(handler));
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
    };
  },
});
