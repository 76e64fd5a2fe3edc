/**
 * JSDoc examples that compile (issue #27 item 9, docs/contributing.md "JSDoc examples"): each
 * public entry point's `@example <name>` block holds exactly the region `<name>` of the
 * `*.examples.ts` file next to its source, which `tsc` type-checks. A difference fails here;
 * `npm run sync:examples` copies the regions into the JSDoc blocks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exampleFiles, regionsOf, syncExamples, syncSource } from '../../build/jsdoc-examples/sync.ts';

/** The public entry points that must carry a compiled example (the list). */
const REQUIRED = [
  'createContractHandler',
  'createGovernedResource',
  'createGovernedApi',
  'defineEntity',
  'createGovernedService',
  'memoryStorage',
  'sqliteStorage',
  'postgresStorage',
  'toExpress',
  'cellgatePlugin',
  'toHono',
  'toNodeHandler',
  'toNextRouteHandlers',
  'createTestApi',
  'signDevToken',
];

describe('JSDoc examples', () => {
  it('every JSDoc example block is the same as its region (run `npm run sync:examples`)', () => {
    expect(syncExamples(false)).toEqual([]);
  });

  it('every required entry point has a region', () => {
    const names = exampleFiles().flatMap((file) => [...regionsOf(readFileSync(file, 'utf8')).keys()]);
    expect(names.sort()).toEqual(expect.arrayContaining(REQUIRED));
    expect(new Set(names).size).toBe(names.length);
  });

  it('sees a changed line, a missing block, and writes the region back', () => {
    const regions = regionsOf(['// #region hello', '  const a = 1;', '', '  console.log(a);', '// #endregion'].join('\n'));
    expect(regions.get('hello')).toEqual(['const a = 1;', '', 'console.log(a);']);
    const stale = ['/**', ' * Says hello.', ' *', ' * @example hello', ' * const a = 2;', ' * @returns nothing', ' */'].join('\n');
    const synced = syncSource(stale, regions);
    expect(synced.drifted).toEqual(['hello']);
    expect(synced.text).toBe(
      ['/**', ' * Says hello.', ' *', ' * @example hello', ' * const a = 1;', ' *', ' * console.log(a);', ' * @returns nothing', ' */'].join('\n'),
    );
    expect(syncSource(synced.text, regions).drifted).toEqual([]);
    expect(syncSource('/** No example. */', regions).drifted).toEqual(['hello']);
  });
});
