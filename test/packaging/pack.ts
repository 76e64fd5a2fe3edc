/**
 * The package as a new user installs it: `npm pack` of a fresh build, unpacked into the
 * `node_modules` of a throwaway app. Its dependencies and the frameworks an app asks for are
 * linked from this repository's install, so the trial runs offline and fast.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
// One build of dist/ under one lock for every packaging test (build.ts).
export { ensureBuilt, root } from './build.ts';
import { ensureBuilt, root } from './build.ts';

let tarball: Promise<string> | undefined;

/** `npm pack` once per test file; resolves the tarball's path. */
export function packOnce(): Promise<string> {
  tarball ??= (async () => {
    await ensureBuilt();
    const out = mkdtempSync(join(tmpdir(), 'cellgate-pack-'));
    const { stdout } = await run('npm', ['pack', '--pack-destination', out, '--silent', '--ignore-scripts'], { cwd: root, timeout: 120_000 });
    return join(out, stdout.trim().split('\n').pop()!);
  })();
  return tarball;
}

/** Options of {@link createApp}. */
export interface AppOptions {
  /** `module` or `commonjs`. */
  type: 'module' | 'commonjs';
  /** Packages of this repository's install to link into the app (frameworks, drivers, typescript types). */
  link?: string[];
  /** Files to write, relative to the app folder. */
  files?: Record<string, string>;
}

/** Creates a fresh app folder with the packed cellgate installed; resolves its path. */
export async function createApp(options: AppOptions): Promise<string> {
  const app = mkdtempSync(join(tmpdir(), 'cellgate-app-'));
  const modules = join(app, 'node_modules');
  mkdirSync(join(modules, 'cellgate'), { recursive: true });
  await run('tar', ['-xzf', await packOnce(), '-C', join(modules, 'cellgate'), '--strip-components=1'], { timeout: 60_000 });
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of [...Object.keys(pkg.dependencies), ...(options.link ?? [])]) {
    const target = join(modules, name);
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), target, 'dir');
  }
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'newcomer-app', private: true, type: options.type }, null, 2));
  for (const [file, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(app, file)), { recursive: true });
    writeFileSync(join(app, file), text);
  }
  return app;
}

/** Spawns a server process and resolves the first capture of `pattern` in its output (its URL) and a stop function. */
export async function startProcess(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; pattern: RegExp },
): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = options.pattern.exec(out);
        if (match) resolve(match[1]!);
      });
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)));
    });
    return { url, stop: () => child.kill('SIGTERM') };
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
}
