/**
 * CommonJS apps: the packed package is `require()`d from a `"type": "commonjs"` app on plain Node
 * (the `require` condition bridges to the ESM build, so both module systems share one instance),
 * type-checks there under `module: node16` and under `module: commonjs` (Nest's starter: TypeScript
 * then resolves the Node 10 way, without `exports`, through `types` and `typesVersions`), and
 * passes publint and attw for node10 and node16 from ESM and CJS.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, ensureBuilt, root, run } from './pack.ts';

const tsc = join(root, 'node_modules/typescript/bin/tsc');

beforeAll(() => ensureBuilt(), 300_000);

describe('CommonJS consumers', () => {
  it('require() of every entry works from a commonjs app, sharing instances with import()', async () => {
    const app = await createApp({
      type: 'commonjs',
      files: {
        'main.js': `
const cellgate = require('cellgate');
const entries = ['adapters/node', 'adapters/express', 'adapters/fastify', 'adapters/hono', 'adapters/next', 'storage/sqlite', 'storage/postgres', 'storage/pglite'];
for (const entry of entries) if (Object.keys(require('cellgate/' + entry)).length === 0) throw new Error(entry + ' is empty');
(async () => {
  const esm = await import('cellgate');
  const handler = cellgate.createContractHandler();
  const response = await handler(new Request('http://localhost/health'));
  console.log(JSON.stringify({ status: response.status, same: esm.createContractHandler === cellgate.createContractHandler }));
})();
`,
      },
    });
    const { stdout } = await run(process.execPath, ['main.js'], { cwd: app, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ status: 200, same: true });
  }, 180_000);

  // skipLibCheck as `tsc --init` sets it: jose (a dependency) ships ESM-only declarations, which
  // node16 refuses to check from a CommonJS file even though Node >= 20.19 requires it fine.
  it('type-checks under strict module node16 from a commonjs app', async () => {
    const app = await createApp({
      type: 'commonjs',
      link: ['@types/node', 'express', '@types/express'],
      files: {
        'tsconfig.json': JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'node16',
            moduleResolution: 'node16',
            target: 'es2022',
            noEmit: true,
            skipLibCheck: true,
            lib: ['es2022', 'dom'],
            types: ['node'],
          },
        }),
        'main.ts': `
import { createContractHandler, composeHandlers, type FetchHandler } from 'cellgate';
import { toExpress } from 'cellgate/adapters/express';
import express = require('express');
const handler: FetchHandler = composeHandlers(createContractHandler({ basePath: '/platform' }));
const app = express();
app.use('/platform', toExpress(handler));
export = app;
`,
      },
    });
    const result = await run(process.execPath, [tsc, '-p', '.'], { cwd: app, timeout: 120_000 }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(result).toBe('');
  }, 180_000);

  it('type-checks under module commonjs (moduleResolution node10): every entry has its types through typesVersions', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      types: string;
      typesVersions: Record<string, Record<string, string[]>>;
      exports: Record<string, { require: { types: string } }>;
    };
    const subpaths = Object.keys(pkg.exports).filter((subpath) => subpath !== '.' && !subpath.endsWith('.json'));
    // Kept in step with the exports map: each subpath maps to the types of its require condition.
    expect(pkg.types).toBe(pkg.exports['.']!.require.types);
    expect(pkg.typesVersions).toEqual({ '*': Object.fromEntries(subpaths.map((subpath) => [subpath.slice(2), [pkg.exports[subpath]!.require.types]])) });
    const specifiers = ['cellgate', ...subpaths.map((subpath) => `cellgate/${subpath.slice(2)}`)];
    const app = await createApp({
      type: 'commonjs',
      link: ['@types/node'],
      files: {
        'tsconfig.json': JSON.stringify({
          compilerOptions: { strict: true, module: 'commonjs', target: 'es2022', noEmit: true, skipLibCheck: true, types: ['node'] },
        }),
        'main.ts': [
          ...specifiers.map((specifier, index) => `import * as entry${index} from '${specifier}';`),
          `export const entries = [${specifiers.map((_, index) => `entry${index}`).join(', ')}];`,
          `import { createContractHandler, type FetchHandler } from 'cellgate';`,
          `import { toExpress } from 'cellgate/adapters/express';`,
          `import { storageFromUrl } from 'cellgate/node';`,
          `export const handler: FetchHandler = createContractHandler({ basePath: '/platform' });`,
          `export const middleware = toExpress(handler);`,
          `export const storage = storageFromUrl('memory:');`,
        ].join('\n'),
      },
    });
    const result = await run(process.execPath, [tsc, '-p', '.'], { cwd: app, timeout: 120_000 }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(result).toBe('');
  }, 180_000);

  it('publint and attw (node10, and node16 from ESM and CJS) pass on the packed package', async () => {
    const publint = await run('npx', ['publint', '--strict'], { cwd: root, timeout: 120_000 });
    expect(publint.stdout).toMatch(/All good/);
    // attw exits non-zero on any problem in the profile.
    const attw = await run('npx', ['attw', '--pack', '.', '--format', 'table-flipped'], { cwd: root, timeout: 180_000 });
    expect(attw.stdout).toMatch(/node10/);
    expect(attw.stdout).toMatch(/node16 \(from CJS\)/);
    expect(attw.stdout).not.toMatch(/dynamic import only|❌/u);
  }, 400_000);
});
