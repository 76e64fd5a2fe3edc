// workerd smoke, the Worker: bundled with esbuild for the workerd platform; its `fetch` is the
// smoke app's handler itself, so workerd serves cellgate's own answers.
import * as cellgate from '../../dist/index.js';
import { createSmokeHandler } from './app.mjs';

// Built on the first request: a Worker may not do its work at start-up.
let handler;

export default {
  async fetch(request) {
    handler ??= createSmokeHandler(cellgate);
    return (await handler)(request);
  },
};
