/**
 * Every TypeScript block of the README type-checks under `strict` against the packed package, as
 * an ESM consumer (`module: nodenext`) and as a CommonJS one (`module: node16`, for the blocks a
 * CommonJS file can hold: no top-level await, no JSON import attributes). Blocks are fragments of
 * one story: the files they import are written next to them, and the few values a block takes
 * from an earlier one (`cellgate`, `storage`, …) are declared once in `readme-globals.d.ts`.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, packOnce, root, run } from '../packaging/pack.ts';

beforeAll(() => packOnce(), 300_000);

const tsc = join(root, 'node_modules/typescript/bin/tsc');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const tsBlocks = [...readme.matchAll(/^```ts[^\n]*\n([\s\S]*?)^```$/gm)].map((match) => ({
  line: readme.slice(0, match.index).split('\n').length,
  code: match[1]!,
}));

const TASK = readFileSync(join(root, 'README.md'), 'utf8').match(/```json file=task\.entity\.json\n([\s\S]*?)```/)![1]!;

const GLOBALS = `
declare const cellgate: import('cellgate').FetchHandler;
declare const storage: import('cellgate').StorageDriver;
declare const customerDocument: import('cellgate').EntityDocumentInput;
declare const invoiceDocument: import('cellgate').EntityDocumentInput;
declare const customerDoc: import('cellgate').EntityDocumentInput;
declare const myOwnRoutes: import('cellgate').FetchHandler;
declare const Invoice: import('cellgate').EntityDefinitionDocument;
declare function readAuditRows(tenantId: string): Promise<unknown[]>;
`;

const SUPPORT: Record<string, string> = {
  'readme/task.entity.json': TASK,
  'readme/my-storage.ts': `import { memoryStorage, type StorageDriver } from 'cellgate';\nexport const myStorage = (_options: { url: string }): StorageDriver => memoryStorage();\n`,
  'readme-globals.d.ts': GLOBALS,
  'src/entities.ts': `import { readFileSync } from 'node:fs';\nimport { defineEntity } from 'cellgate';\nexport const Task = defineEntity(JSON.parse(readFileSync('task.entity.json', 'utf8')));\n`,
  'src/tasks.ts': `import type { GovernedService, GovernedContext } from 'cellgate';\nexport async function completeTask(tasks: GovernedService, context: GovernedContext, id: string) {\n  const task = await tasks.get(context, id);\n  return tasks.update(context, id, { expectedVersion: task.meta.version, done: true });\n}\n`,
  'lib/cellgate.ts': `import { createContractHandler, type FetchHandler } from 'cellgate';\nexport const getCellgate = async (): Promise<FetchHandler> => createContractHandler();\n`,
};

const LINKS = ['@types/node', 'express', '@types/express', 'fastify', 'hono', '@hono/node-server', 'next', 'vitest', 'yaml', 'better-sqlite3', '@types/better-sqlite3', 'pg', '@types/pg', 'react', '@types/react'];

async function typecheck(type: 'module' | 'commonjs', blocks: typeof tsBlocks): Promise<string> {
  const files: Record<string, string> = { ...SUPPORT };
  for (const block of blocks) files[`readme/block-${block.line}.ts`] = block.code.includes('import') || block.code.includes('export') ? block.code : `${block.code}\nexport {};\n`;
  files['tsconfig.json'] = JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: ['node'], resolveJsonModule: true, skipLibCheck: true,
      module: type === 'module' ? 'nodenext' : 'node16', moduleResolution: type === 'module' ? 'nodenext' : 'node16',
      paths: { '@/lib/cellgate': ['./lib/cellgate.ts'] },
    },
    include: ['readme/**/*.ts', 'readme-globals.d.ts', 'src/**/*.ts', 'lib/**/*.ts'],
  });
  const app = await createApp({ type, link: LINKS, files });
  cpSync(join(root, 'src/contract/examples/files/crm-manifest.yaml'), join(app, 'crm.yaml'));
  return run(process.execPath, [tsc, '-p', '.'], { cwd: app, timeout: 180_000 }).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  );
}

describe('README TypeScript blocks', () => {
  it('finds the blocks', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(10);
  });

  it('type-check under strict as ESM (module nodenext)', async () => {
    expect(await typecheck('module', tsBlocks)).toBe('');
  }, 240_000);

  it('type-check under strict as CommonJS (module node16) where a CommonJS file can hold them', async () => {
    const cjsBlocks = tsBlocks.filter((block) => !/^await |\n\s*await |with \{ type: 'json' \}/.test(block.code) && !block.code.includes('export const {'));
    expect(cjsBlocks.length).toBeGreaterThanOrEqual(3);
    expect(await typecheck('commonjs', cjsBlocks)).toBe('');
  }, 240_000);
});
