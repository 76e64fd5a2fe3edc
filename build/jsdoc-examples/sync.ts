/**
 * JSDoc examples that compile (issue #27 item 9). An `@example <name>` block in a source file
 * holds the same lines as the region `// #region <name>` … `// #endregion` of the
 * `*.examples.ts` file next to it; `tsc` type-checks the examples file (it is in the typecheck,
 * never in the build: tsup builds only the package entries), so a sample that stops compiling
 * fails `npm run typecheck`, and test/packaging/jsdoc-examples.test.ts fails when a JSDoc block
 * and its region differ.
 *
 * `npm run sync:examples` copies every region into its JSDoc block; `--check` only reports.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The repository root. */
export const root = resolve(import.meta.dirname, '../..');

/** The folders whose `*.examples.ts` files are synced. */
const FOLDERS = ['src', 'adapters'];

const REGION_START = /^\s*\/\/ #region (\S+)\s*$/;
const REGION_END = /^\s*\/\/ #endregion\b/;
/** `@example <name>` alone on a JSDoc line: the block that mirrors the region `<name>`. */
const EXAMPLE_TAG = /^(\s*)\* @example (\S+)\s*$/;
/** The line that ends an example block: the next tag or the end of the comment. */
const BLOCK_END = /^\s*(\*\s*@\w|\*\/)/;

/** One source file whose JSDoc examples differ from their regions. */
export interface ExampleDrift {
  /** The source file, relative to the repository root. */
  file: string;
  /** The regions whose block differs, or that no `@example <name>` block names. */
  regions: string[];
}

/** Every `*.examples.ts` file under the synced folders, as absolute paths. */
export function exampleFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.examples.ts')) found.push(path);
    }
  };
  for (const folder of FOLDERS) walk(join(root, folder));
  return found.sort();
}

/** The regions of an examples file, by name, without their common indentation. */
export function regionsOf(code: string): Map<string, string[]> {
  const regions = new Map<string, string[]>();
  let name: string | undefined;
  let lines: string[] = [];
  for (const line of code.split('\n')) {
    const start = REGION_START.exec(line);
    if (start) {
      name = start[1]!;
      lines = [];
    } else if (name !== undefined && REGION_END.test(line)) {
      const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
      regions.set(
        name,
        lines.map((l) => l.slice(indent)),
      );
      name = undefined;
    } else if (name !== undefined) lines.push(line);
  }
  return regions;
}

/**
 * The source with each `@example <name>` block replaced by its region, and the names of the
 * regions that changed a block or that no block names.
 */
export function syncSource(source: string, regions: Map<string, string[]>): { text: string; drifted: string[] } {
  const lines = source.split('\n');
  const out: string[] = [];
  const drifted = new Set<string>();
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]!);
    const tag = EXAMPLE_TAG.exec(lines[i]!);
    const region = tag ? regions.get(tag[2]!) : undefined;
    if (!tag || !region) continue;
    seen.add(tag[2]!);
    let end = i + 1;
    while (end < lines.length && !BLOCK_END.test(lines[end]!)) end++;
    const wanted = region.map((l) => (l === '' ? `${tag[1]}*` : `${tag[1]}* ${l}`));
    if (lines.slice(i + 1, end).join('\n') !== wanted.join('\n')) drifted.add(tag[2]!);
    out.push(...wanted);
    i = end - 1;
  }
  for (const name of regions.keys()) if (!seen.has(name)) drifted.add(name);
  return { text: out.join('\n'), drifted: [...drifted] };
}

/** Syncs (or, with `write: false`, only checks) every examples file against its source. */
export function syncExamples(write: boolean): ExampleDrift[] {
  const drifts: ExampleDrift[] = [];
  for (const examples of exampleFiles()) {
    const sourcePath = examples.replace(/\.examples\.ts$/, '.ts');
    const source = readFileSync(sourcePath, 'utf8');
    const { text, drifted } = syncSource(source, regionsOf(readFileSync(examples, 'utf8')));
    if (drifted.length === 0) continue;
    drifts.push({ file: relative(root, sourcePath), regions: drifted });
    if (write && text !== source) writeFileSync(sourcePath, text);
  }
  return drifts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  const drifts = syncExamples(!check);
  for (const drift of drifts) console.log(`${check ? 'differs' : 'synced'}: ${drift.file} (${drift.regions.join(', ')})`);
  if (check && drifts.length > 0) process.exitCode = 1;
}
