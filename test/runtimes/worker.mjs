// workerd smoke, the Worker: bundled with esbuild for the workerd platform, answers the check
// results as JSON on any request.
import * as cellgate from '../../dist/index.js';
import { runChecks } from './checks.mjs';

export default {
  async fetch() {
    return Response.json({ runtime: 'workerd', results: await runChecks(cellgate, { fileSystem: false }) });
  },
};
