/**
 * The public entry points of the package, derived from the `exports` map of package.json so the
 * build (tsup), the tests (vitest aliases) and the packaging test share one list.
 *
 * Rule: `./adapters/<name>` is built from `adapters/<name>/index.ts`; every other subpath
 * `./<path>` from `src/<path>/index.ts`; the root from `src/index.ts`. The CLI is the one
 * entry that is a `bin`, not an export.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, unknown>;
};

/** One public entry: the import specifier, its source file and its output name under dist/. */
export interface PackageEntry {
  specifier: string;
  source: string;
  outName: string;
}

function sourceOf(subpath: string): string {
  if (subpath === '.') return 'src/index.ts';
  const path = subpath.slice(2);
  return path.startsWith('adapters/') ? `${path}/index.ts` : `src/${path}/index.ts`;
}

/** Every export of package.json that is code (not `./package.json`). */
export const packageEntries: PackageEntry[] = Object.keys(pkg.exports)
  .filter((subpath) => !subpath.endsWith('.json'))
  .map((subpath) => ({
    specifier: subpath === '.' ? 'cellgate' : `cellgate/${subpath.slice(2)}`,
    source: sourceOf(subpath),
    outName: subpath === '.' ? 'index' : subpath.slice(2),
  }));

/** Entries that are built but not exported: the `cellgate` command (it runs `cellgate/host`). */
export const binEntries: PackageEntry[] = [{ specifier: 'cellgate/cli', source: 'src/cli/index.ts', outName: 'cli' }];

/** Absolute source path for each public specifier, for test and tool aliases. */
export const sourceAliases: Record<string, string> = Object.fromEntries(packageEntries.map((entry) => [entry.specifier, `${root}${entry.source}`]));
