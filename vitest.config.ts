import { configDefaults, defineConfig } from 'vitest/config';
import { sourceAliases } from './entries.config.ts';

// Tests import the public specifiers (`cellgate`, `cellgate/adapters/express`, …); these aliases
// point them at the sources, longest specifier first so `cellgate` does not swallow its subpaths.
const alias = Object.entries(sourceAliases)
  .sort(([a], [b]) => b.length - a.length)
  .map(([find, replacement]) => ({ find: new RegExp(`^${find.replace('/', '\\/')}$`), replacement }));

// CI runs the suite on two Nodes (.ci/run). The second run (`CELLGATE_SECOND_NODE=1`) leaves out the
// slowest files whose subject does not depend on the Node version: the tarball trial apps, the
// CommonJS type checks, `next build`, PGlite (WebAssembly, the same on every Node), the PgBouncer and replica clusters,
// and the type and docs checks.
const firstNodeOnly =
  process.env.CELLGATE_SECOND_NODE === '1'
    ? [
        'test/newcomer/trial.test.ts',
        'test/packaging/commonjs.test.ts',
        'test/docs/next-build.test.ts',
        'test/storage/pglite.test.ts',
        'test/governed/pglite.test.ts',
        // Real clusters, pooler and replicas (issue #32): what they test is the server side.
        'test/storage/pgbouncer.test.ts',
        'test/storage/replicas.test.ts',
        'test/storage/failover.test.ts',
        // Type checks, TypeDoc and the docs' samples: tsc and typedoc answer the same on every Node.
        'test/types/types.test.ts',
        'test/docs/code-blocks.test.ts',
        'test/docs/run-blocks.test.ts',
        'test/packaging/lint-api-docs.test.ts',
        // kill -9 of child processes mid-upgrade and the verify command over a seeded log: the
        // Node-specific parts (SQLite, pg) run in the storage conformance suites on both Nodes.
        'test/storage/upgrade-kill.test.ts',
        'test/log/verify-cli.test.ts',
      ]
    : [];

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...firstNodeOnly],
    benchmark: { include: ['test/bench/**/*.bench.ts'] },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    outputFile: { junit: 'test-results/junit.xml' },
  },
});
