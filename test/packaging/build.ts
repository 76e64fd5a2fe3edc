/**
 * One build of `dist/` for every test that needs the package as users get it. Test files run in
 * parallel processes and tsup empties `dist/` before it writes, so a build runs under a lock
 * folder and only when a source is newer than the built root entry.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root. */
export const root = resolve(import.meta.dirname, '../..');

/** A lock older than this belongs to a crashed run (a build takes ~2 min on a busy machine). */
const STALE_LOCK_MS = 6 * 60_000;

/** Newest modification time under the source folders, to rebuild only when dist is stale. */
function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== '.next') walk(path);
      } else if (/\.(ts|yaml|json)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ['src', 'adapters', 'build', 'examples']) walk(join(root, dir));
  return Math.max(newest, statSync(join(root, 'package.json')).mtimeMs, statSync(join(root, 'tsup.config.ts')).mtimeMs);
}

function stale(): boolean {
  const newest = newestSource();
  // The ESM build and the CommonJS bridge beside it.
  return ['dist/index.js', 'dist/index.cjs'].some((file) => !existsSync(join(root, file)) || statSync(join(root, file)).mtimeMs < newest);
}

/** Builds `dist/` with tsup unless it is up to date; safe to call from parallel test files. */
export async function ensureBuilt(): Promise<void> {
  const lock = join(root, 'test-results', '.build-lock');
  mkdirSync(join(root, 'test-results'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - since > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else await sleep(500);
    }
  }
  try {
    if (stale()) await run('npx', ['tsup', '--silent'], { cwd: root, timeout: 300_000 });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
