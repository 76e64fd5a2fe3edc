/**
 * The import boundaries of biome.json (docs/contributing.md#import-boundaries) really fail the
 * lint: probe files that break each rule are written at the folders where the rules apply, Biome
 * (the pinned binary, the repository's own configuration) lints them, and every forbidden import,
 * and only those, must be reported by `noRestrictedImports`. The probes live in a temporary copy
 * of the layout (biome.json with VCS integration off, as there is no git there), never in the
 * working tree, where tests that scan src/ in parallel would see them.
 *
 * A rule that stops matching (a glob typo, a moved folder, a Biome upgrade that reads patterns
 * differently) turns this test red instead of silently letting the layers tangle again.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repository = resolve(import.meta.dirname, '../..');
const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
const tag = 'lint-probe';

/** One import line of a probe and whether the boundary rules must reject it. */
type Line = [specifier: string, forbidden: boolean, form?: 'static' | 'export' | 'dynamic'];

/** Probe files, keyed by folder: each line is one import that the rule for that folder must judge. */
const probes: Record<string, Line[]> = {
  // src/ never imports examples/, at any depth; src/contract/examples is a different folder.
  src: [
    ['../examples/express-host/main.ts', true],
    ['../examples/reference-host/main.ts', true, 'dynamic'],
    ['./limits.ts', false],
  ],
  'src/host': [
    ['../../examples/reference-host/main.ts', true],
    ['../../examples', true, 'export'],
    ['../governed/index.ts', false],
  ],
  'src/contract/http': [
    ['../../../examples/next-host/slot.ts', true],
    ['../examples/index.ts', false],
    ['../../entity-document/index.ts', false],
    ['../../governed/index.ts', true],
  ],
  // src/governed and src/contract share only src/entity-document and the neutral modules.
  'src/governed': [
    ['../contract/docs/openapi.ts', true],
    ['../contract', true, 'export'],
    ['../contract/services.ts', true, 'dynamic'],
    ['../entity-document/index.ts', false],
    ['../http/error-envelope.ts', false],
    ['../errors.ts', false],
  ],
  'src/governed/http': [
    ['../../contract/http/route.ts', true],
    ['../../../examples/hono-host/main.ts', true],
    ['../../http/index.ts', false],
  ],
  // The shared modules import neither half.
  'src/entity-document': [
    ['../contract/schema/common.ts', true],
    ['../governed/index.ts', true, 'dynamic'],
    ['../validation/list.ts', false],
    ['../../examples/reference-host/main.ts', true],
  ],
  'src/validation': [
    ['../contract/schema/results.ts', true],
    ['../governed', true, 'export'],
    ['../limits.ts', false],
  ],
  'src/contract': [
    ['../governed/index.ts', true],
    ['../entity-document/index.ts', false],
  ],
  // Examples and adapters import only public entry points (and their own folder, other packages).
  'examples/express-host': [
    ['../../src/index.ts', true],
    ['../../adapters/node/index.ts', true],
    ['../fastify-host/main.ts', true],
    ['cellgate/src/index.ts', true],
    ['cellgate/dist/index.js', true],
    ['cellgate', false],
    ['cellgate/adapters/express', false],
    ['./main.ts', false],
    ['express', false],
  ],
  'adapters/express': [
    ['../../src/index.ts', true],
    ['../node/index.ts', true],
    ['../../examples/express-host/main.ts', true],
    ['cellgate/adapter-kit', false],
    ['cellgate/adapters/node', false],
    ['./index.ts', false],
  ],
};

function probeText(lines: Line[]): string {
  return `${lines
    .map(([specifier, , form = 'static'], i) => {
      if (form === 'export') return `export * from '${specifier}';`;
      if (form === 'dynamic') return `export const load${i} = () => import('${specifier}');`;
      return `import * as m${i} from '${specifier}';\nexport { m${i} };`;
    })
    .join('\n')}\n`;
}

/** 1-based line of each probe entry in probeText (static imports take two lines). */
function lineNumbers(lines: Line[]): number[] {
  let line = 1;
  return lines.map(([, , form = 'static']) => {
    const at = line;
    line += form === 'static' ? 2 : 1;
    return at;
  });
}

const sandbox = mkdtempSync(join(tmpdir(), 'cellgate-lint-'));
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

describe('import boundaries (biome noRestrictedImports)', () => {
  it('reports every forbidden import in every folder, and nothing else', () => {
    const config = JSON.parse(readFileSync(join(repository, 'biome.json'), 'utf8')) as Record<string, unknown>;
    const { $schema: _schema, ...rest } = config;
    writeFileSync(join(sandbox, 'biome.json'), JSON.stringify({ ...rest, vcs: { enabled: false } }));
    const files = Object.entries(probes).map(([folder, lines]) => {
      const file = join(folder, `${tag}.ts`);
      mkdirSync(dirname(join(sandbox, file)), { recursive: true });
      writeFileSync(join(sandbox, file), probeText(lines));
      return { file, lines };
    });
    const run = spawnSync(
      process.execPath,
      [biome, 'lint', '--only=style/noRestrictedImports', '--reporter=github', '--max-diagnostics=none', ...files.map((f) => f.file)],
      { cwd: sandbox, encoding: 'utf8' },
    );
    const reported = new Set(
      [...run.stdout.matchAll(/^::error title=lint\/style\/noRestrictedImports,file=([^,]+),line=(\d+),/gm)].map(
        (m) => `${m[1]!.replace(`${sandbox}/`, '')}:${m[2]}`,
      ),
    );
    const expected = new Set(files.flatMap(({ file, lines }) => lineNumbers(lines).flatMap((line, i) => (lines[i]![1] ? [`${file}:${line}`] : []))));
    expect(run.stderr + run.stdout).not.toMatch(/configuration resulted in errors|No files were processed/);
    expect([...reported].sort()).toEqual([...expected].sort());
    expect(run.status).not.toBe(0);
  });

  it('finds no violation in the tree as it is', () => {
    const run = spawnSync(process.execPath, [biome, 'lint', '--only=style/noRestrictedImports', '--reporter=github', 'src', 'adapters', 'examples'], {
      cwd: repository,
      encoding: 'utf8',
    });
    expect(run.stdout.split('\n').filter((line) => line.startsWith('::error'))).toEqual([]);
    expect(run.status).toBe(0);
  });
});
