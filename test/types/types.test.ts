/**
 * Type-level tests, compiled by tsc: the inferred record types of `typed-entity.fixture.ts` and the
 * typed API of `typed-api.fixture.ts` (their `@ts-expect-error` lines must be errors), and the governed samples of docs/governed.md (the JSON-import
 * mounting sample and the typed-record sample) under `strict` with moduleResolution `bundler` and
 * `nodenext`, as a user's project would compile them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cellgate-types-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The ```ts block following a heading or bold lead-in of docs/governed.md. */
function readmeBlock(after: string): string {
  const readme = readFileSync(join(root, 'docs/governed.md'), 'utf8');
  const start = readme.indexOf(after);
  expect(start, `docs/governed.md section "${after}"`).toBeGreaterThan(-1);
  const open = readme.indexOf('```ts\n', start);
  return readme.slice(open + 6, readme.indexOf('\n```', open + 6));
}

/** A file the README shows in full (a block opened with ```<lang> file=<name>). */
function readmeFile(name: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const open = readme.indexOf(` file=${name}\n`);
  expect(open, `README block file=${name}`).toBeGreaterThan(-1);
  const start = readme.indexOf('\n', open) + 1;
  return readme.slice(start, readme.indexOf('\n```', start));
}

/** A user's project in `dir` that imports `cellgate` (mapped to this repository's sources). */
function project(
  dir: string,
  resolution: 'bundler' | 'nodenext',
  files: Record<string, string>,
  include: string[] = [],
  exactOptionalPropertyTypes = false,
): string {
  mkdirSync(join(dir, 'entities'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'entities', 'customer.entity.json'), readFileSync(join(root, 'examples/entities/customer.entity.json')));
  // The mounting sample imports the entity the Quick start writes.
  writeFileSync(join(dir, 'task.entity.json'), readmeFile('task.entity.json'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: resolution === 'bundler' ? 'ESNext' : 'NodeNext',
      moduleResolution: resolution === 'bundler' ? 'Bundler' : 'NodeNext',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      strict: true,
      exactOptionalPropertyTypes,
      noEmit: true,
      skipLibCheck: true,
      resolveJsonModule: true,
      allowImportingTsExtensions: true,
      verbatimModuleSyntax: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      paths: {
        cellgate: [join(root, 'src/index.ts')],
        'cellgate/adapters/node': [join(root, 'adapters/node/index.ts')],
        'cellgate/adapter-kit': [join(root, 'src/adapter-kit/index.ts')],
        'cellgate/testing': [join(root, 'src/testing/index.ts')],
      },
    },
    files: [...Object.keys(files).map((name) => join(dir, name)), ...include],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 1));
  const result = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
    encoding: 'utf8',
    cwd: root,
  });
  return `${result.stdout}${result.stderr}`.trim() + (result.status === 0 ? '' : `\n(exit ${result.status})`);
}

const samples = () => ({
  'mount.ts': `${readmeBlock('## Mounting a governed resource')}\nexport {};\n`,
  'typed.ts': `${readmeBlock('**Typed records.**')}\nexport {};\n`,
});

/** The README's commented-out misspelt create, made live, plus a wrong value type. */
function wrongSample(): string {
  const wrong = readmeBlock('**Typed records.**').replace(/^\/\/ (invoices\.create\(.*amont.*;).*$/m, 'await $1\nconst text: string = created.data.amount;');
  expect(wrong).toContain("await invoices.create(context, { invoiceNumber: 'INV-2', amont: 5");
  return `${wrong}\nexport {};\n`;
}

describe('types compiled by tsc', () => {
  it('infers record types (typed-entity.fixture.ts), compiles the README samples with moduleResolution bundler, and refuses a misspelt field and a wrong value type', () => {
    const output = project(join(work, 'bundler'), 'bundler', { ...samples(), 'wrong.ts': wrongSample() }, [join(root, 'test/types/typed-entity.fixture.ts')]);
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
    // Only the deliberately wrong file fails, with exactly its two errors.
    expect(errors.map((line) => line.replace(/^.*\/(\w+\.ts)\(\d+,\d+\)/, '$1'))).toEqual([
      expect.stringMatching(/^wrong\.ts: error TS(2353|2561): .*'amont'/),
      expect.stringMatching(/^wrong\.ts: error TS2322: Type 'number' is not assignable to type 'string'/),
    ]);
  }, 180_000);

  // Issue #28: api.resources and createTestApi's client keep each resource's record type.
  it.each(['bundler', 'nodenext'] as const)(
    'keeps record types through createGovernedApi and createTestApi (typed-api.fixture.ts) under exactOptionalPropertyTypes, moduleResolution %s',
    (resolution) => {
      const output = project(join(work, `typed-api-${resolution}`), resolution, {}, [join(root, 'test/types/typed-api.fixture.ts')], true);
      // cellgate's own sources are compiled here through `paths` (a user's project reads the built
      // .d.ts files under skipLibCheck), so only the fixture's lines are the user's view.
      expect(output).not.toMatch(/error TS[56]\d{3}/); // tsc read its configuration and files
      expect(output.split('\n').filter((line) => line.includes('typed-api.fixture.ts'))).toEqual([]);
    },
    180_000,
  );

  // What the editor shows for a record (hover, errors): its fields, not the entity document behind them.
  it('names a record by its fields, in document order: EntityData<{ title: string; done: boolean | null; }>', () => {
    const sample = `import { createGovernedApi, defineEntity, memoryStorage, type GovernedContext } from 'cellgate';
const Task = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task', key: 'pm.task', version: '1.0.0', description: 'A task', scope: 'workspace-shared', governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: { title: { type: 'string' }, done: { type: 'boolean', optional: true } },
});
declare const context: GovernedContext;
const api = createGovernedApi({ storage: memoryStorage(), auth: { secret: 'x' }, resources: { tasks: Task } });
const created = await api.resources.tasks.service.create(context, { title: 'Plan' });
export const shown: number = created.data;
`;
    const output = project(join(work, 'hover'), 'bundler', { 'hover.ts': sample });
    expect(output).toContain("Type 'EntityData<{ title: string; done: boolean | null; }>' is not assignable to type 'number'");
  }, 180_000);

  it('compiles the README samples with moduleResolution nodenext', () => {
    const output = project(join(work, 'nodenext'), 'nodenext', samples());
    expect(output).toBe('');
  }, 180_000);
});
