// workerd smoke, the driver: bundles worker.mjs with esbuild (workerd conditions, nothing
// external), runs it in miniflare (workerd) and prints the Worker's answer. Miniflare 4 needs
// Node >= 22: `node22 test/runtimes/workerd.mjs` from the repository root, after the build.
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

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
});
try {
  const response = await mf.dispatchFetch('http://smoke.test/');
  console.log(await response.text());
} finally {
  await mf.dispose();
}
