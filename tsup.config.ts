import { defineConfig } from 'tsup';
import { binEntries, packageEntries } from './entries.config.ts';

export default defineConfig({
  entry: Object.fromEntries(
    [...packageEntries, ...binEntries].map((entry) => [entry.outName, entry.source]),
  ),
  format: ['esm'],
  target: 'node20',
  platform: 'neutral',
  dts: { entry: Object.fromEntries(packageEntries.map((entry) => [entry.outName, entry.source])) },
  splitting: true,
  sourcemap: true,
  clean: true,
  treeshake: true,
  // Keep `node:` on built-in imports: Deno and Bun need the prefix, and the neutrality test looks for it.
  removeNodeProtocol: false,
  // Each public entry imports the others by their package name, so one copy of shared state exists
  // at run time; optional peers are resolved from the host application.
  // `vitest` is the host's own test runner when it imports `cellgate/testing`.
  external: [/^cellgate(\/.*)?$/, /^node:/, 'pg', 'better-sqlite3', 'express', 'fastify', 'hono', /^@hono\//, /^next(\/.*)?$/, /^vitest(\/.*)?$/],
});
