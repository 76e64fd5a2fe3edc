// workerd smoke, the driver: bundles worker.mjs with esbuild (workerd conditions, nothing
// external), serves it with miniflare (workerd) on 127.0.0.1, prints the URL as one JSON line and
// stops after LIFETIME_MS or on SIGTERM (the test's stop), disposing of workerd either way.
// Miniflare 4 needs Node >= 22: `node22 test/runtimes/workerd.mjs` from the repository root, after the build.
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { announce, LIFETIME_MS } from './app.mjs';

const bundle = await build({
  entryPoints: [new URL('./worker.mjs', import.meta.url).pathname],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  conditions: ['workerd', 'worker', 'import', 'default'],
  logLevel: 'error',
});
const mf = new Miniflare({
  modules: true,
  script: bundle.outputFiles[0].text,
  compatibilityDate: '2025-01-01',
  host: '127.0.0.1',
  port: 0,
});
const url = await mf.ready;
announce({ runtime: 'workerd', url: url.origin });

let stopping;
const stop = () => (stopping ??= mf.dispose().finally(() => process.exit(0)));
process.once('SIGTERM', stop);
setTimeout(stop, LIFETIME_MS);
