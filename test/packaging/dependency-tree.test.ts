/**
 * What `npm install cellgate` brings into an app (docs/dependencies.md): the packed package is
 * installed with npm into a fresh app, from the local npm cache where it can and the registry for
 * the rest, and the tree it gets is pinned: exactly the packages below, none deprecated, none with
 * an install script, and the whole `node_modules` under a size bound. Then the installed package
 * serves the docs page's Swagger UI files it ships, and a check that needs the optional MCP client
 * peer, absent here, says what to install.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packOnce, root, run } from './pack.ts';

/**
 * Every package of the production tree. Before (0.1.0): 106 packages, 46.3 MB (62 MB on disk),
 * among them express, hono, itty-router (deprecated) and @scarf/scarf (an install script). The MCP
 * server SDK is bundled into cellgate's MCP chunks (docs/decisions/B26.md), not installed.
 */
const TREE = ['cellgate', 'jose', 'kysely', 'yaml', 'zod'];

/**
 * Bytes of every file under the app's `node_modules`, at most a third of 0.1.0's 46.3 MB (issue
 * #26). 14.77 MB when this was written: zod 6.15, cellgate 4.40 (1.94 of it the Swagger UI files,
 * 0.72 the bundled MCP SDK, no source maps), kysely 3.31, yaml 0.69, jose 0.22. The list above
 * already refuses another package; the bound catches a package that grows.
 */
const MAX_TREE_BYTES = 15_400_000;

interface Installed {
  app: string;
  /** What npm printed (stdout and stderr). */
  output: string;
  /** The app's package-lock.json `packages`, without the app itself. */
  packages: Record<string, { version?: string; hasInstallScript?: boolean; deprecated?: string }>;
}

let installed: Installed;

beforeAll(async () => {
  const tarball = await packOnce();
  const app = mkdtempSync(join(tmpdir(), 'cellgate-tree-'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tree-app', private: true, type: 'module' }));
  // Scripts are never run here; the lock says which packages have one.
  const { stdout, stderr } = await run('npm', ['install', tarball, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: app,
    timeout: 240_000,
  });
  const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Installed['packages'] };
  const { '': _app, ...packages } = lock.packages;
  installed = { app, output: `${stdout}\n${stderr}`, packages };
}, 420_000);

afterAll(() => {
  if (installed) rmSync(installed.app, { recursive: true, force: true });
});

/** `node_modules/a/node_modules/@b/c` → `@b/c`. */
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** Bytes of the files under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The install scripts npm would run for a package (lifecycle scripts, or the implicit node-gyp one). */
function installScripts(dir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const scripts = ['preinstall', 'install', 'postinstall'].filter((name) => manifest.scripts?.[name] !== undefined);
  if (scripts.length === 0 && readdirSync(dir).includes('binding.gyp')) scripts.push('install (binding.gyp)');
  return scripts;
}

describe('npm install cellgate', () => {
  it('brings exactly the pinned packages', () => {
    expect(Object.keys(installed.packages).map(nameOf).sort()).toEqual(TREE);
  });

  it('brings no deprecated package', () => {
    expect(installed.output).not.toMatch(/npm warn deprecated/i);
    expect(Object.entries(installed.packages).filter(([, entry]) => entry.deprecated !== undefined)).toEqual([]);
  });

  it('brings no install script', () => {
    expect(Object.entries(installed.packages).filter(([, entry]) => entry.hasInstallScript)).toEqual([]);
    const withScripts = Object.keys(installed.packages)
      .map((path) => [nameOf(path), installScripts(join(installed.app, path))] as const)
      .filter(([, scripts]) => scripts.length > 0);
    expect(withScripts).toEqual([]);
  });

  it(`stays under ${MAX_TREE_BYTES / 1e6} MB`, () => {
    expect(bytesUnder(join(installed.app, 'node_modules'))).toBeLessThan(MAX_TREE_BYTES);
  });

  it('serves the Swagger UI files it ships, and names the missing MCP client peer', async () => {
    const script = `
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { toNodeHandler } from 'cellgate/adapters/node';
import { createReferenceApp, loadConfig, runSmoke } from 'cellgate/host';
const app = await createReferenceApp(loadConfig({ DATABASE_URL: 'memory:', CELLGATE_JWT_SECRET: 'tree-app-secret-0123456789abcdef0123', PORT: '0' }));
const server = createServer(toNodeHandler(app.handler));
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const url = 'http://127.0.0.1:' + server.address().port;
const out = { page: (await fetch(url + '/api/docs')).status };
const bundle = await fetch(url + '/api/docs/assets/swagger-ui-bundle.js');
out.bundle = [bundle.status, createHash('sha256').update(new Uint8Array(await bundle.arrayBuffer())).digest('hex')];
try {
  await runSmoke(url);
  out.smoke = 'passed';
} catch (error) {
  out.smoke = { name: error.name, message: error.message };
}
await new Promise((done) => server.close(done));
await app.close();
console.log(JSON.stringify(out));
`;
    writeFileSync(join(installed.app, 'main.mjs'), script);
    const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: installed.app, timeout: 60_000 });
    const out = JSON.parse(stdout.trim().split('\n').pop()!);
    const shipped = createHash('sha256')
      .update(readFileSync(join(root, 'src/contract/docs/swagger-ui/swagger-ui-bundle.js')))
      .digest('hex');
    expect(out.page).toBe(200);
    expect(out.bundle).toEqual([200, shipped]);
    expect(out.smoke.name).toBe('ConfigurationError');
    expect(out.smoke.message).toContain('npm install --save-dev @modelcontextprotocol/sdk');
  }, 120_000);
});
