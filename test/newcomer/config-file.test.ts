/**
 * `cellgate.config.*` from the packed tarball in fresh apps: `serve` and `migrate` find it in the
 * current directory or take `--config`, flags override it, entity paths are relative to it, a
 * TypeScript config loads where the process can import TypeScript (here: the app's own tsx, Bun)
 * and says what to do where it cannot, and `defineConfig` type-checks the file under `strict`.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, packOnce, root, run, startProcess } from '../packaging/pack.ts';

beforeAll(() => packOnce(), 300_000);

const TASK = `$schema: https://cellgate.dev/schemas/entity-definition/v1.json
name: Task
key: work.task
version: 1.0.0
description: A to-do item.
scope: workspace-shared
governance_tier: tier-2
permissions: { view: [viewer, editor, admin], edit: [editor, admin], admin: [admin] }
fields:
  title: { type: string }
`;
const NOTE = TASK.replace('name: Task', 'name: Note').replace('key: work.task', 'key: work.note').replace('A to-do item.', 'A note.');

const SECRET = 'x'.repeat(40);
const WORKSPACE = '00000000-0000-4000-8000-000000000002';
const CLI = 'node_modules/cellgate/dist/cli.js';

// Without the suite's DATABASE_URL: what the configuration says is what the command uses.
const { DATABASE_URL: _suiteDatabase, ...baseEnv } = process.env;
const env = { ...baseEnv, CELLGATE_JWT_SECRET: SECRET };

/** Runs the installed command in `app`; resolves exit code and output, also on failure. */
const cli = (app: string, args: string[], runtime = process.execPath) =>
  run(runtime, [CLI, ...args], { cwd: app, timeout: 60_000, env }).then(
    (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

/** Starts `cellgate serve` in `app`; answers the status of a POST and a GET on each collection. */
async function serveAndProbe(app: string, args: string[], collections: string[]): Promise<Record<string, number>> {
  const { url, stop } = await startProcess([CLI, 'serve', ...args], { cwd: app, env, pattern: /listening on (http:\/\/\S+)/ });
  try {
    const { stdout: token } = await run(
      process.execPath,
      [CLI, 'token', '--tenant', '00000000-0000-4000-8000-000000000001', '--workspace', `${WORKSPACE}=editor`],
      { cwd: app, env },
    );
    const statuses: Record<string, number> = {};
    for (const collection of collections) {
      const response = await fetch(`${url}/v1/workspaces/${WORKSPACE}/${collection}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.trim()}`, 'content-type': 'application/json' },
        body: '{"title":"t"}',
      });
      statuses[collection] = response.status;
    }
    return statuses;
  } finally {
    stop();
  }
}

describe('cellgate.config from the tarball', () => {
  it('serve finds cellgate.config.mjs in the current directory; flags override it', async () => {
    const app = await createApp({
      type: 'module',
      files: {
        'entities/task.entity.yaml': TASK,
        'note.entity.yaml': NOTE,
        // A storage the flag must override: nothing listens there and pg is not installed.
        'cellgate.config.mjs': `import { defineConfig } from 'cellgate';\nexport default defineConfig({ entities: ['./entities/task.entity.yaml'], storage: 'memory:', port: 0, host: '127.0.0.1' });\n`,
      },
    });
    expect(await serveAndProbe(app, [], ['tasks', 'notes'])).toEqual({ tasks: 201, notes: 404 });
    // --entity replaces the configuration's entities.
    expect(await serveAndProbe(app, ['--entity', 'note.entity.yaml'], ['tasks', 'notes'])).toEqual({ tasks: 404, notes: 201 });
    // --database-url overrides the configuration's storage.
    writeFileSync(
      join(app, 'cellgate.config.mjs'),
      `export default { entities: ['./entities/task.entity.yaml'], storage: 'postgres://app@127.0.0.1:1/app', port: 0 };\n`,
    );
    expect(await serveAndProbe(app, ['--database-url', 'memory:'], ['tasks'])).toEqual({ tasks: 201 });
  }, 120_000);

  it('migrate takes --config: entity paths relative to the file, its storage, CommonJS too', async () => {
    const app = await createApp({
      type: 'commonjs',
      link: ['better-sqlite3'],
      files: {
        'config/task.entity.yaml': TASK,
        'config/cellgate.config.js': `const { defineConfig } = require('cellgate');\nmodule.exports = defineConfig({ entities: ['./task.entity.yaml'], storage: 'sqlite:./data.db' });\n`,
      },
    });
    const result = await cli(app, ['migrate', '--config', 'config/cellgate.config.js']);
    expect(result.stderr).toMatch(/using .*config\/cellgate\.config\.js/);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('work.Task@v1 → table work_task_v1') });
    expect(existsSync(join(app, 'data.db'))).toBe(true);
    // --dry-run on the same storage: the table exists now.
    expect((await cli(app, ['migrate', '--config', 'config/cellgate.config.js', '--dry-run'])).stdout).toMatch(/up to date/);
  }, 60_000);

  it('a bad configuration is one line and exit 2, naming every wrong path', async () => {
    const app = await createApp({
      type: 'module',
      files: { 'cellgate.config.mjs': `export default { entities: [3], storage: 'memory:', colour: 'red', port: 'eighty' };\n` },
    });
    const result = await cli(app, ['migrate']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/entities\.0: Expected a file path or an entity definition document/);
    expect(result.stderr).toMatch(/colour/);
    expect(result.stderr).toMatch(/port: /);
    expect((await cli(app, ['serve', '--config', 'missing.mjs'])).stderr).toMatch(/--config missing\.mjs: no such file/);
    writeFileSync(join(app, 'cellgate.config.mjs'), 'export const entities = [];\n');
    expect((await cli(app, ['migrate'])).stderr).toMatch(/no default export/);
  }, 60_000);

  const TS_CONFIG = `import { defineConfig } from 'cellgate';

const storage: string = 'sqlite:./ts.db';
export default defineConfig({ entities: ['./task.entity.yaml'], storage });
`;

  it('cellgate.config.ts: a clear message where Node cannot load TypeScript, else the app’s tsx loads it', async () => {
    const app = await createApp({ type: 'module', link: ['better-sqlite3'], files: { 'task.entity.yaml': TASK, 'cellgate.config.ts': TS_CONFIG } });
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    if (major < 22 || (major === 22 && minor < 18)) {
      const refused = await cli(app, ['migrate']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/cannot load a TypeScript file.*npm install -D tsx.*cellgate\.config\.mjs/);
    }
    // With tsx in the app, the command loads the file through it.
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    symlinkSync(join(root, 'node_modules/tsx'), join(app, 'node_modules/tsx'), 'dir');
    const loaded = await cli(app, ['migrate']);
    expect(loaded).toMatchObject({ code: 0, stdout: expect.stringContaining('work_task_v1') });
    expect(existsSync(join(app, 'ts.db'))).toBe(true);
  }, 60_000);

  it('Bun loads cellgate.config.ts itself', async () => {
    const app = await createApp({
      type: 'module',
      files: { 'task.entity.yaml': TASK, 'cellgate.config.ts': TS_CONFIG.replace("'sqlite:./ts.db'", "'memory:'") },
    });
    const result = await cli(app, ['migrate'], join(root, 'node_modules/.bin/bun'));
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('work_task_v1') });
  }, 60_000);

  it('defineConfig types the file under strict: a typo or a wrong type does not compile', async () => {
    const app = await createApp({
      type: 'module',
      link: ['typescript', '@types/node'],
      files: {
        'good/cellgate.config.ts': TS_CONFIG,
        'bad/typo.config.ts': `import { defineConfig } from 'cellgate';\nexport default defineConfig({ entitys: [] });\n`,
        'bad/port.config.ts': `import { defineConfig } from 'cellgate';\nexport default defineConfig({ port: '3000' });\n`,
      },
    });
    const tsc = (folder: string) => {
      const compilerOptions = {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        skipLibCheck: true,
        types: ['node'],
      };
      writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: [`${folder}/*.ts`] }));
      return run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: app, timeout: 120_000 }).then(
        () => '',
        (error: { stdout: string }) => error.stdout,
      );
    };
    expect(await tsc('good')).toBe('');
    const errors = await tsc('bad');
    expect(errors).toMatch(/typo\.config\.ts.*'entitys' does not exist/);
    expect(errors).toMatch(/port\.config\.ts.*'string' is not assignable to type 'number'/);
  }, 180_000);
});
