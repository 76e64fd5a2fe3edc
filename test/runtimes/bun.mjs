// Bun smoke: `bun test/runtimes/bun.mjs` from the repository root, after the build.
import * as cellgate from '../../dist/index.js';
import { runChecks } from './checks.mjs';

console.log(JSON.stringify({ runtime: `bun ${Bun.version}`, results: await runChecks(cellgate, { fileSystem: true }) }));
