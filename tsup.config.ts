import { cpSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';
import { copyMcpSdkLicenses, MCP_SDK_PACKAGES, mcpSdkShims } from './build/mcp-sdk/bundle.ts';
import { binEntries, packageEntries } from './entries.config.ts';

const root = dirname(fileURLToPath(import.meta.url));

/**
 * The `require` side of each public entry. Node >= 20.19 can `require()` an ES module, so the
 * CommonJS file is a one-line bridge to the ESM build instead of a second copy of the code: a
 * CommonJS app and an ESM app in one process share the same module instances (one registry, one
 * set of caches). tsup still emits `.d.cts` declarations from the real sources for it.
 */
const requireBridge: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'cellgate-require-bridge',
  setup(build) {
    // With splitting on, tsup bundles the CommonJS side as ESM and converts it afterwards, so the
    // output extension (not `format`) tells the two sides apart.
    if (build.initialOptions.outExtension?.['.js'] !== '.cjs') return;
    const outNames = new Map(packageEntries.map((entry) => [resolve(root, entry.source), entry.outName]));
    // The command is never required: its CommonJS side stays empty rather than a second build.
    const commands = new Set(binEntries.map((entry) => resolve(root, entry.source)));
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (commands.has(args.path)) return { contents: '', loader: 'js' };
      const outName = outNames.get(args.path);
      if (outName === undefined) return undefined;
      return { contents: `export * from './${basename(outName)}.js';\n`, loader: 'js', resolveDir: dirname(args.path) };
    });
    build.onResolve({ filter: /^\.\/[^/]+\.js$/ }, (args) => (outNames.has(args.importer) ? { path: args.path, external: true } : undefined));
  },
};

export default defineConfig({
  entry: Object.fromEntries([...packageEntries, ...binEntries].map((entry) => [entry.outName, entry.source])),
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'neutral',
  dts: { entry: Object.fromEntries(packageEntries.map((entry) => [entry.outName, entry.source])) },
  splitting: true,
  // No source maps in the package: they point at sources it does not ship, and were a third of
  // its size (docs/decisions/B26.md). The JavaScript is not minified; stack traces stay readable.
  sourcemap: false,
  clean: true,
  treeshake: true,
  esbuildPlugins: [requireBridge, mcpSdkShims(root)],
  // The MCP server SDK is bundled into the lazily loaded MCP chunks, not a dependency (B26).
  noExternal: [MCP_SDK_PACKAGES],
  // Keep `node:` on built-in imports: Deno and Bun need the prefix, and the neutrality test looks for it.
  removeNodeProtocol: false,
  // Each public entry imports the others by their package name, so one copy of shared state exists
  // at run time; optional peers are resolved from the host application.
  // `vitest` is the host's own test runner when it imports `cellgate/testing`.
  external: [
    /^cellgate(\/.*)?$/,
    /^node:/,
    'pg',
    'better-sqlite3',
    /^@electric-sql\/pglite(\/.*)?$/,
    'express',
    'fastify',
    'hono',
    /^@hono\//,
    /^next(\/.*)?$/,
    /^vitest(\/.*)?$/,
  ],
  // The docs page's Swagger UI files (vendored with their licence) go beside the chunks that read
  // them: `src/contract/docs/assets.ts` resolves `./swagger-ui/` against its own module URL.
  // The licences of the bundled MCP SDK go to `dist/mcp-sdk/`.
  onSuccess: async () => {
    cpSync(resolve(root, 'src/contract/docs/swagger-ui'), resolve(root, 'dist/swagger-ui'), { recursive: true, filter: (source) => !source.endsWith('.md') });
    copyMcpSdkLicenses(root);
  },
});
