/**
 * Adapter conformance for Next.js: the built examples/next-host app (App Router catch-all route
 * through `toNextRouteHandlers`) served by a real production Next server in this process. The
 * first run builds the app (`next build`, cached in examples/next-host/.next).
 */
import { vi } from 'vitest';
import { runAdapterConformance } from 'cellgate/testing';
import { buildNextApp, mountNext } from 'cellgate/host/frameworks';

// The first start may run `next build` (a minute or two on 2 cores) inside the suite's beforeAll.
vi.setConfig({ hookTimeout: 600_000 });

runAdapterConformance({
  name: 'next',
  skip: {
    prefix: 'Next mounts by route folder; a path prefix is the route folder or next.config basePath, fixed at build time',
    parsedBody: 'Next hands route handlers the untouched Fetch request; it never parses a body ahead of them',
    clientAddress: 'Next gives route handlers no socket; the peer address is only in proxy headers Next may set',
    fallThrough: "a catch-all route owns every path it matches; the host's own routes are more specific folders (checked by test/examples)",
  },
  start: async (handler) => {
    buildNextApp();
    // reason: this process holds two copies of cellgate (the test's sources and the Next bundle of
    // the route), and both register their zod schema ids in zod's one global registry; JSON Schema
    // generation refuses duplicate ids, so the memoised OpenAPI/JSON Schema answers of the test's
    // handler are computed before the route bundle loads. A real Next app has a single copy.
    for (const path of ['/api/openapi.json', '/api/json-schema/manifest', '/api/json-schema/entity']) {
      await handler(new Request(`http://localhost${path}`));
    }
    const server = await mountNext(handler);
    const address = await server.listen(0, '127.0.0.1');
    return { url: `http://127.0.0.1:${address.port}`, close: () => server.close() };
  },
});
