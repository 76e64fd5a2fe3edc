/**
 * The Next.js host: a production Next server (custom node:http server around `next()`) whose
 * catch-all route `app/[...cellgate]/route.ts` serves the reference app through
 * `toNextRouteHandlers`. The app is built once (`next build`, output cached in `.next/`).
 *
 * The Next project itself (its `app/` routes and config) is a folder of the repository,
 * `examples/next-host/`: this module finds it on disk and builds it; it imports nothing from it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { FetchHandler } from 'cellgate';
import { toNextRouteHandlers } from 'cellgate/adapters/next';
import { nodeServer, type MountedServer } from 'cellgate/host';

/**
 * Global slot through which this process hands the catch-all route its handlers. The route reads
 * the same `Symbol.for` key from a tiny module of its own (`examples/next-host/slot.ts`), so it
 * never has to load cellgate to find them.
 */
export const ROUTE_HANDLERS = Symbol.for('cellgate.next-host.route-handlers');

/**
 * The Next project directory, given a folder: that folder itself when it holds a Next `app/`
 * (the example's own folder), else `examples/next-host/` in the nearest of its parents that has
 * one: the repository, seen from this module's source folder (`src/host/frameworks/`) or from
 * the built files (`dist/…`, beside which a clone keeps `examples/`). Ends with a separator. In
 * the published package none exists; {@link buildNextApp} then says how to mount cellgate in
 * your own app.
 */
export function findNextDir(here: string): string {
  const folder = here.endsWith(sep) ? here : here + sep;
  const candidates = [folder];
  for (let up = folder, level = 0; level < 4 && dirname(up) !== up; level++) {
    up = dirname(up);
    candidates.push(join(up, 'examples', 'next-host') + sep);
  }
  return candidates.find((dir) => existsSync(join(dir, 'app'))) ?? folder;
}

/** The Next project directory (see {@link findNextDir}). */
export const NEXT_DIR = findNextDir(fileURLToPath(new URL('.', import.meta.url)));

const LOCK = `${NEXT_DIR}.next-build.lock`;

/** Waits for the build lock (several test processes may start the host at once). */
function lock(): void {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch {
      // A lock older than a build can take is left over from a killed process.
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 10 * 60_000) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${LOCK}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
}

/** Newest modification time of the sources the build bundles (the repository's src/, adapters/, examples/). */
function newestSource(dir = join(NEXT_DIR, '..', '..'), depth = 0): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') continue;
    if (depth === 0 && !['src', 'adapters', 'examples'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path, depth + 1) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when a build exists and no bundled source changed since. */
function upToDate(): boolean {
  const id = statSync(`${NEXT_DIR}.next/BUILD_ID`, { throwIfNoEntry: false });
  return id !== undefined && id.mtimeMs >= newestSource();
}

/** Runs `next build` unless an up-to-date build exists (`force`: always). */
export function buildNextApp(force = false): void {
  // The Next app's sources live in the repository, not in the published package (whose bundled
  // CLI would otherwise try to build its own dist/ folder as a Next app).
  if (!existsSync(join(NEXT_DIR, 'app'))) {
    throw new Error(
      `the Next host needs the cellgate repository's examples/next-host (not found at ${NEXT_DIR}); in your own Next app, mount toNextRouteHandlers from cellgate/adapters/next (README "Mount it in your server")`,
    );
  }
  if (!force && upToDate()) return;
  lock();
  try {
    if (force || !upToDate()) runBuild();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function runBuild(): void {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.resolve('next/dist/bin/next')), 'build'], {
    cwd: NEXT_DIR,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`next build failed:\n${result.stdout}\n${result.stderr}`);
  // Next writes an editor typing file pointing into .next/; the repository's typecheck does not
  // need it and it would break while a rebuild replaces .next/.
  rmSync(`${NEXT_DIR}next-env.d.ts`, { force: true });
}

/** Starts the built Next app in this process, serving `handler` from the catch-all route. */
export async function mountNext(handler: FetchHandler): Promise<MountedServer> {
  buildNextApp();
  // Route modules run in this process; they pick the handlers up from this global slot instead of
  // loading a second copy of cellgate from their bundle (see examples/next-host/app/[...cellgate]/route.ts).
  (globalThis as Record<symbol, unknown>)[ROUTE_HANDLERS] = toNextRouteHandlers(handler);
  // Loaded here, not at the top: `cellgate/host/frameworks` exports this module, and a host on another
  // framework must not need Next installed.
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: NEXT_DIR, quiet: true });
  await app.prepare();
  const server = nodeServer(createServer(app.getRequestHandler()));
  return {
    listen: server.listen,
    close: async () => {
      await server.close();
      await app.close();
    },
  };
}
