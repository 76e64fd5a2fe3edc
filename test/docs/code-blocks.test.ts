/**
 * Every TypeScript block of the README and of the guides under `docs/` type-checks under `strict`
 * against the packed package, as an ESM consumer (`module: nodenext`) and as a CommonJS one
 * (`module: node16`, for the blocks a CommonJS file can hold: no top-level await, no JSON import
 * attributes). A block named `file=<path>` is written at that path of the app (other blocks
 * import it); the others are fragments of one story: the files they import are written next to
 * them, and the few values a fragment takes from an earlier block (`cellgate`, `storage`, …) are
 * declared once in `docs-globals.d.ts`. A block leaves the check only with `no-check="<reason>"`.
 * The links between the docs are checked here too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, packOnce, root, run } from '../packaging/pack.ts';
import { type CodeBlock, codeBlocks, markdownFiles, tsBlocks, where } from './markdown.ts';

beforeAll(() => packOnce(), 300_000);

const tsc = join(root, 'node_modules/typescript/bin/tsc');
const blocks = tsBlocks();
const checked = blocks.filter((block) => !('no-check' in block.attrs));

/** The Quick start's entity, which later samples read or import. */
const TASK = codeBlocks('README.md').find((block) => block.attrs.file === 'task.entity.json')!.code;

const GLOBALS = `
declare const cellgate: import('cellgate').FetchHandler;
declare const storage: import('cellgate').StorageDriver;
declare const entity: import('cellgate').EntityDocumentInput;
declare const auth: { secret: string };
declare const secret: string;
declare const customerDocument: import('cellgate').EntityDocumentInput;
declare const invoiceDocument: import('cellgate').EntityDocumentInput;
declare const customerDoc: import('cellgate').EntityDocumentInput;
declare const myOwnRoutes: import('cellgate').FetchHandler;
declare const Invoice: import('cellgate').EntityDefinitionDocument;
declare function readAuditRows(tenantId: string): Promise<unknown[]>;
`;

/** Files the fragments import, as a reader's app would have them. */
const SUPPORT: Record<string, string> = {
  'task.entity.json': TASK,
  'blocks/task.entity.json': TASK,
  'blocks/my-storage.ts': `import { memoryStorage, type StorageDriver } from 'cellgate';\nexport const myStorage = (_options?: { url?: string }): StorageDriver => memoryStorage();\n`,
  'docs-globals.d.ts': GLOBALS,
  'src/entities.ts': `import { readFileSync } from 'node:fs';\nimport { defineEntity } from 'cellgate';\nexport const Task = defineEntity(JSON.parse(readFileSync('task.entity.json', 'utf8')));\n`,
  'src/tasks.ts': `import type { GovernedService, GovernedContext } from 'cellgate';\nexport async function completeTask(tasks: GovernedService, context: GovernedContext, id: string) {\n  const task = await tasks.get(context, id);\n  return tasks.update(context, id, { expectedVersion: task.meta.version, done: true });\n}\n`,
  'lib/cellgate.ts': `import { createContractHandler, type FetchHandler } from 'cellgate';\nexport const getCellgate = async (): Promise<FetchHandler> => createContractHandler();\n`,
};

/** CommonJS stand-ins for `file=` blocks a CommonJS file cannot hold (top-level await), so the blocks importing them still check. */
const CJS_STANDINS: Record<string, string> = {
  'cellgate.ts': `export declare const cellgate: import('cellgate').FetchHandler;\n`,
};

const LINKS = [
  '@types/node',
  'express',
  '@types/express',
  'fastify',
  'hono',
  '@hono/node-server',
  'next',
  'vitest',
  'yaml',
  'better-sqlite3',
  '@types/better-sqlite3',
  'pg',
  '@types/pg',
  '@electric-sql/pglite',
  'react',
  '@types/react',
  'pino',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/client',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
];

/** Where a block lives in the generated app. */
function blockPath(block: CodeBlock): string {
  return block.attrs.file ?? `blocks/${block.doc.replace(/\.md$/, '').replaceAll('/', '-')}-${block.line}.ts`;
}

/** A CommonJS file can hold the block: no top-level await, no JSON import attributes, no destructuring export. */
const commonJsCan = (block: CodeBlock) => !/^(?!\s).*\bawait |with \{ type: 'json' \}/m.test(block.code) && !block.code.includes('export const {');

async function typecheck(type: 'module' | 'commonjs', selected: CodeBlock[]): Promise<string> {
  const files: Record<string, string> = { ...SUPPORT };
  if (type === 'commonjs') Object.assign(files, CJS_STANDINS);
  for (const block of selected) files[blockPath(block)] = /^\s*(import|export) /m.test(block.code) ? block.code : `${block.code}\nexport {};\n`;
  files['tsconfig.json'] = JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: ['node'],
      resolveJsonModule: true,
      skipLibCheck: true,
      module: type === 'module' ? 'nodenext' : 'node16',
      moduleResolution: type === 'module' ? 'nodenext' : 'node16',
      paths: { '@/*': ['./*.ts'] }, // as a Next app's `@/*` alias
    },
    include: ['**/*.ts'],
    exclude: ['node_modules'],
  });
  const app = await createApp({ type, link: LINKS, files });
  return run(process.execPath, [tsc, '-p', '.'], { cwd: app, timeout: 180_000 }).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  );
}

describe('TypeScript blocks of the README and docs/', () => {
  it('finds the blocks, in the README and in the guides', () => {
    expect(blocks.filter((block) => block.doc === 'README.md').length).toBeGreaterThanOrEqual(6);
    expect(blocks.filter((block) => block.doc !== 'README.md').length).toBeGreaterThanOrEqual(20);
  });

  it('opts a block out only with a stated reason', () => {
    const unexplained = blocks.filter((block) => 'no-check' in block.attrs && block.attrs['no-check']!.trim().length < 10);
    expect(unexplained.map(where)).toEqual([]);
  });

  it('type-check under strict as ESM (module nodenext)', async () => {
    expect(await typecheck('module', checked)).toBe('');
  }, 240_000);

  it('type-check under strict as CommonJS (module node16) where a CommonJS file can hold them', async () => {
    const cjs = checked.filter(commonJsCan);
    expect(cjs.filter((block) => block.doc === 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(cjs.length).toBeGreaterThanOrEqual(10);
    expect(await typecheck('commonjs', cjs)).toBe('');
  }, 240_000);
});

describe('links of the README and docs/', () => {
  const docs = markdownFiles();

  it('every relative link points at a file of the repository (and an anchor of it, when one is named)', () => {
    const broken: string[] = [];
    const slug = (heading: string) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replaceAll(' ', '-');
    const anchors = (file: string) => new Set([...readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].map((match) => slug(match[1]!)));
    for (const doc of docs) {
      const text = readFileSync(join(root, doc), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#');
        const file = path ? join(root, dirname(doc), path) : join(root, doc);
        if (!existsSync(file)) broken.push(`${doc}: ${target}`);
        else if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every file a doc names in a code span exists (a path from the root, or a file name somewhere in the repository)', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
    const names = new Set(tracked.map((file) => file.slice(file.lastIndexOf('/') + 1)));
    // Files of the reader's app or of the build, which the docs name on purpose, and members that look like file names.
    const theirs =
      /^(server\.js|task\.entity\.json|primitives\.yaml|cellgate\.config\.[mc]?[jt]s|dist\/.*|node_modules\/.*|entities\/[\w.-]+\.yaml|test\/x\/y\.test\.ts|express\.json|c\.req\.json)$/;
    const missing: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(root, doc), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, span] of text.matchAll(/`([^`\n]{1,300})`/g)) {
        for (const token of span!.split(/[\s,()]+/)) {
          // A path or file name with an extension; `/api/openapi.json` is a route, `express.json` a member.
          const match = /^([\w\-[\]][\w.\-/[\]]*\.(?:ts|mts|mjs|cjs|js|json|md|yaml|yml))(?::\d+)?$/.exec(token);
          if (match === null || theirs.test(match[1]!)) continue;
          const path = match[1]!;
          const found = path.includes('/') ? tracked.some((file) => file === path || file.endsWith(`/${path}`)) : names.has(path);
          if (!found) missing.push(`${doc}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('docs/README.md lists every guide', () => {
    const index = readFileSync(join(root, 'docs/README.md'), 'utf8');
    const guides = docs.filter((doc) => /^docs\/[^/]+\.md$/.test(doc) && doc !== 'docs/README.md');
    expect(guides.filter((doc) => !index.includes(`](${doc.slice('docs/'.length)})`))).toEqual([]);
  });

  it('no doc cites a file outside the repository', () => {
    const outside = docs.filter((doc) => /\b(SEED|DECISIONS|DESIGN|REFERENCE-[A-Z-]+)\.md\b/.test(readFileSync(join(root, doc), 'utf8')));
    expect(outside).toEqual([]);
  });
});
