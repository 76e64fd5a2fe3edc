/**
 * The package as users get it: `dist/` built by tsup, resolved through the `exports` map by plain
 * Node (no vitest aliases), with declarations for every entry, and a runtime-neutral root entry.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { binEntries, packageEntries } from '../../entries.config.ts';
import { ensureBuilt } from './build.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { import: { types: string; default: string }; require: { types: string; default: string }; default: string } | string>;
  bin: Record<string, string>;
};

beforeAll(ensureBuilt, 300_000);

/** Static import specifiers of an ESM file (dynamic `import()` is deliberately not followed). */
function staticImports(code: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?["']([^"']+)["']/g;
  for (const match of code.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers;
}

describe('package exports', () => {
  const codeEntries = Object.entries(pkg.exports).filter(([subpath]) => !subpath.endsWith('.json'));

  it('lists the same entries the build is derived from', () => {
    expect(codeEntries.map(([subpath]) => (subpath === '.' ? 'cellgate' : `cellgate/${subpath.slice(2)}`))).toEqual(
      packageEntries.map((entry) => entry.specifier),
    );
  });

  it.each(codeEntries)('%s resolves to built code and declarations', (_subpath, target) => {
    if (typeof target === 'string') throw new Error('code entries carry conditions');
    for (const file of [target.import.default, target.import.types, target.require.default, target.require.types, target.default]) {
      expect(existsSync(join(root, file)), file).toBe(true);
    }
  });

  it('every entry imports under plain Node through the exports map', async () => {
    const script = packageEntries.map((entry) => `await import(${JSON.stringify(entry.specifier)});`).join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', `${script}\nconsole.log('ok')`], {
      cwd: root,
      timeout: 60_000,
    });
    expect(stdout.trim()).toBe('ok');
  });

  it('the root entry is runtime-neutral: no node:*, builtin or database client in its static graph', () => {
    const forbidden = /^(node:|pg$|better-sqlite3$|express$|fastify$|hono|next|fs$|path$|crypto$|http$|os$|child_process$|url$|util$|stream$)/;
    const seen = new Set<string>();
    const offending: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of staticImports(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
        else if (forbidden.test(specifier)) offending.push(`${file.slice(root.length + 1)} imports ${specifier}`);
      }
    };
    visit(join(root, 'dist/index.js'));
    expect(seen.size).toBeGreaterThan(0);
    expect(offending).toEqual([]);
  });

  it('the cellgate command is built and answers --help', async () => {
    const bin = join(root, pkg.bin.cellgate!);
    expect(binEntries.map((entry) => `./dist/${entry.outName}.js`)).toContain(pkg.bin.cellgate);
    const { stdout } = await run(process.execPath, [bin, '--help'], { cwd: root, timeout: 30_000 });
    expect(stdout).toMatch(/Usage: cellgate <command>/);
    for (const command of ['serve', 'validate', 'migrate', 'token', 'mcp']) expect(stdout).toContain(command);
  });

  it('the built command runs the reference host away from the repository (assets bundled)', async () => {
    const bin = join(root, pkg.bin.cellgate!);
    const cwd = mkdtempSync(join(tmpdir(), 'cellgate-bin-'));
    const child = spawn(process.execPath, [bin, 'serve'], {
      cwd,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'memory:' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.once('exit', (code) => reject(new Error(`cellgate serve exited with ${code}: ${out}`)));
      });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const docs = await fetch(`${url}/api/docs`);
      expect([docs.status, docs.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
      // The governed demo resources need the bundled entity documents: mounted, they ask for a token.
      const governed = await fetch(`${url}/v1/workspaces/00000000-0000-4000-8000-000000000002/customers`);
      expect(governed.status).toBe(401);
      expect(await governed.json()).toMatchObject({ error: 'UNAUTHENTICATED' });
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);

  it('the built command explains that the Next host lives in the repository', async () => {
    // As installed from the registry: dist/ and package.json, no examples/ (a clone's own dist/
    // finds examples/next-host at the repository root and serves it).
    const installed = mkdtempSync(join(tmpdir(), 'cellgate-installed-'));
    cpSync(join(root, 'dist'), join(installed, 'dist'), { recursive: true });
    cpSync(join(root, 'package.json'), join(installed, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(installed, 'node_modules'), 'dir');
    const bin = join(installed, pkg.bin.cellgate!);
    const result = await run(process.execPath, [bin, 'serve', '--framework', 'next'], {
      cwd: mkdtempSync(join(tmpdir(), 'cellgate-bin-')),
      env: { ...process.env, PORT: '0', DATABASE_URL: 'memory:' },
      timeout: 60_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/examples\/next-host.*toNextRouteHandlers/);
  }, 90_000);
});
