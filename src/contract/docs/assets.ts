/**
 * The Swagger UI files the docs page needs, shipped in the package and served by the handler
 * itself so the page works with no internet (docs/decisions/A17.md). They are read once, on the
 * first request for each, and kept in memory. The default loader looks the file system up at run
 * time (no import of a Node built-in), so the root entry stays runtime-neutral.
 */
import type { DocsAssetLoader } from '../http/options.ts';
import { DOCS_INIT_SCRIPT } from './page.ts';

/** The files the page loads, with their content types. Anything else under the assets path is 404. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
  'docs-init.js': 'text/javascript; charset=utf-8',
};

/** Assets that are cellgate's own, served from memory (never asked of the loader). */
const BUILT_IN: Readonly<Record<string, string>> = { 'docs-init.js': DOCS_INIT_SCRIPT };

/**
 * The folder of the Swagger UI files, beside this module: `./swagger-ui/` next to `assets.ts` in
 * the sources, and next to the built chunk in `dist/` (the build copies the folder there; the
 * packaging test serves the page from the packed package). See `swagger-ui/README.md`.
 */
const SWAGGER_UI_FOLDER = './swagger-ui/';

/** The part of Node's `fs/promises` the default loader uses. */
interface ReadFileModule {
  readFile(path: URL | string): Promise<Uint8Array>;
}

/** The parts of Node's `module` and `path` the fallback lookup uses. */
interface ModuleModule {
  createRequire(from: string): { resolve(specifier: string): string };
}
interface PathModule {
  join(...parts: string[]): string;
  dirname(path: string): string;
}

/**
 * A built-in module of the runtime, looked up at run time rather than imported, so no bundler
 * sees a Node built-in in the root entry's graph. `process.getBuiltinModule` exists on Node
 * (>= 20.16), Bun and Deno; elsewhere (workerd) the answer is `undefined`.
 */
function builtin<T>(name: string): T | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return typeof runtime?.getBuiltinModule === 'function' ? (runtime.getBuiltinModule(name) as T | undefined) : undefined;
}

// This module's URL, read into a variable: bundlers that see `new URL('./x/', import.meta.url)`
// (Turbopack, webpack) try to bundle the folder and fail the app's build when they cannot.
const moduleUrl: string = import.meta.url;

/**
 * The installed package's copy of a file, for when a bundler (Next.js) moved this module away from
 * its folder: `dist/swagger-ui/` of the `cellgate` that the app's working directory resolves.
 */
function installedCopy(file: string): string | undefined {
  const module = builtin<ModuleModule>('node:module');
  const path = builtin<PathModule>('node:path');
  const cwd = (globalThis as { process?: { cwd?: () => string } }).process?.cwd?.();
  if (!module || !path || cwd === undefined) return undefined;
  try {
    return path.join(path.dirname(module.createRequire(path.join(cwd, 'package.json')).resolve('cellgate/package.json')), 'dist', 'swagger-ui', file);
  } catch {
    return undefined;
  }
}

/**
 * Reads one of the Swagger UI files shipped with cellgate on runtimes that have a file system
 * (Node, Bun, Deno): beside this module first, else the installed package's copy; answers
 * `undefined` (the asset is 404) on runtimes that have none, where the host passes `docs.assets`
 * instead. Only names of {@link DOCS_ASSETS} reach it.
 */
export const readSwaggerUiFile: DocsAssetLoader = async (file) => {
  const fs = builtin<ReadFileModule>('node:fs/promises');
  if (!fs) return undefined;
  try {
    return new Uint8Array(await fs.readFile(new URL(file, new URL(SWAGGER_UI_FOLDER, moduleUrl))));
  } catch (error) {
    const installed = installedCopy(file);
    if (installed === undefined) throw error;
    return new Uint8Array(await fs.readFile(installed));
  }
};

/** One asset ready to send. */
export interface DocsAsset {
  body: Uint8Array | string;
  contentType: string;
}

/**
 * Memoising asset store over a loader: each file is loaded at most once (concurrent first
 * requests share the same promise); unknown names resolve `undefined`.
 */
export function createAssetStore(loader: DocsAssetLoader): (file: string) => Promise<DocsAsset | undefined> {
  const loaded = new Map<string, Promise<DocsAsset | undefined>>();
  return (file) => {
    // Own names only: `constructor` or `__proto__` is no asset (it used to reach the loader: a 500).
    if (!Object.hasOwn(DOCS_ASSETS, file)) return Promise.resolve(undefined);
    const contentType = DOCS_ASSETS[file]!;
    if (Object.hasOwn(BUILT_IN, file)) return Promise.resolve({ body: BUILT_IN[file]!, contentType });
    let pending = loaded.get(file);
    if (!pending) {
      pending = loader(file).then((body) => (body === undefined ? undefined : { body, contentType }));
      // A failed read (missing package) may succeed later; do not keep the rejection.
      pending.catch(() => loaded.delete(file));
      loaded.set(file, pending);
    }
    return pending;
  };
}
