// Bun smoke: `bun test/runtimes/bun.mjs` from the repository root, after the build. Serves the
// smoke app with Bun.serve on 127.0.0.1 (the handler as `fetch`, and a Hono app through `toHono`),
// prints their URLs as one JSON line and stops after LIFETIME_MS (the test stops it earlier).
import { Hono } from 'hono';
import * as cellgate from '../../dist/index.js';
import { toHono } from '../../dist/adapters/hono.js';
import { announce, createSmokeHandler, createSmokeHono, LIFETIME_MS } from './app.mjs';

const handler = await createSmokeHandler(cellgate);
const direct = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler });
const hono = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createSmokeHono(Hono, toHono, handler).fetch });
announce({ runtime: `bun ${Bun.version}`, url: `http://127.0.0.1:${direct.port}`, hono: `http://127.0.0.1:${hono.port}` });
setTimeout(() => {
  direct.stop(true);
  hono.stop(true);
}, LIFETIME_MS);
