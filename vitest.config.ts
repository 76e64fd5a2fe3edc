import { defineConfig } from 'vitest/config';
import { sourceAliases } from './entries.config.ts';

// Tests import the public specifiers (`cellgate`, `cellgate/adapters/express`, …); these aliases
// point them at the sources, longest specifier first so `cellgate` does not swallow its subpaths.
const alias = Object.entries(sourceAliases)
  .sort(([a], [b]) => b.length - a.length)
  .map(([find, replacement]) => ({ find: new RegExp(`^${find.replace('/', '\\/')}$`), replacement }));

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['test/**/*.test.ts'],
    benchmark: { include: ['test/bench/**/*.bench.ts'] },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    outputFile: { junit: 'test-results/junit.xml' },
  },
});
