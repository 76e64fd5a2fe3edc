// Deno smoke: `deno run --allow-read --allow-net=127.0.0.1 test/runtimes/deno.mjs` from the
// repository root (Deno resolves the dependencies from its node_modules), after the build. Serves
// the smoke app with Deno.serve on 127.0.0.1 (the handler itself, and a Hono app through `toHono`),
// prints their URLs as one JSON line and stops after LIFETIME_MS (the test stops it earlier).
import { Hono } from 'hono';
import * as cellgate from '../../dist/index.js';
import { toHono } from '../../dist/adapters/hono.js';
import { announce, createSmokeHandler, createSmokeHono, LIFETIME_MS } from './app.mjs';

const handler = await createSmokeHandler(cellgate);
const quiet = () => undefined;
const direct = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: quiet }, handler);
const hono = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: quiet }, createSmokeHono(Hono, toHono, handler).fetch);
announce({ runtime: `deno ${Deno.version.deno}`, url: `http://127.0.0.1:${direct.addr.port}`, hono: `http://127.0.0.1:${hono.addr.port}` });
setTimeout(() => {
  void direct.shutdown();
  void hono.shutdown();
}, LIFETIME_MS);
