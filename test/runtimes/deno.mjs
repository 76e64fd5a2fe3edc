// Deno smoke: `deno run --allow-read test/runtimes/deno.mjs` from the repository root
// (Deno resolves the dependencies from its node_modules), after the build.
import * as cellgate from '../../dist/index.js';
import { runChecks } from './checks.mjs';

console.log(JSON.stringify({ runtime: `deno ${Deno.version.deno}`, results: await runChecks(cellgate, { fileSystem: true }) }));
