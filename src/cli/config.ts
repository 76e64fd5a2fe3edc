/**
 * Loads the optional `cellgate.config.{ts,mts,js,mjs}` that every command touching storage or
 * entities reads (`serve`, `migrate`, `erase`, `purge`, `audit export`): the file named by
 * `--config`, else the first of those names in the current directory. JavaScript configs load on
 * every supported Node; a TypeScript one loads where the process can import TypeScript (Node with
 * type stripping, from 22.18 on by default; Bun; Deno; a process started through tsx) or, failing
 * that, through the app's own `tsx` when it has one installed. Otherwise the error says what to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CellgateConfigSchema, type CellgateConfig } from '../config/index.ts';
import { MAX_CONFIG_PROBLEMS_SHOWN } from '../limits.ts';
import { UsageError, readDocumentFile } from './args.ts';

/** The file names looked up in the current directory, in this order. */
export const CONFIG_FILES = ['cellgate.config.ts', 'cellgate.config.mts', 'cellgate.config.js', 'cellgate.config.mjs'] as const;

/** A loaded configuration file: where it is and what it sets (checked). */
export interface LoadedConfig {
  file: string;
  config: CellgateConfig;
}

/** One entity document to serve or migrate, with the name errors call it by. */
export interface NamedDocument {
  label: string;
  document: unknown;
}

const isTypeScript = (file: string): boolean => /\.[mc]?ts$/.test(file);

/**
 * Imports a TypeScript file with the app's own tsx, when it has one; `undefined` without. tsx's
 * ESM API is found through tsx's own exports map: its CommonJS build cannot load files this way.
 */
async function importWithAppTsx(file: string): Promise<unknown> {
  let manifest: string;
  try {
    manifest = createRequire(file).resolve('tsx/package.json');
  } catch {
    return undefined;
  }
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, { import?: { default?: string } }> };
  const entry = exports?.['./esm/api']?.import?.default;
  if (entry === undefined) return undefined;
  const { tsImport } = (await import(pathToFileURL(join(dirname(manifest), entry)).href)) as {
    tsImport: (specifier: string, parent: string) => Promise<unknown>;
  };
  return tsImport(pathToFileURL(file).href, import.meta.url);
}

async function importConfig(file: string): Promise<unknown> {
  try {
    return await import(pathToFileURL(file).href);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!isTypeScript(file) || code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  }
  const loaded = await importWithAppTsx(file);
  if (loaded !== undefined) return loaded;
  throw new UsageError(
    `${file}: this Node (${process.version}) cannot load a TypeScript file. Use Node 22.18 or later, ` +
      'or install tsx in the app (`npm install -D tsx`; cellgate then loads the file with it), ' +
      'or write the configuration as cellgate.config.mjs.',
  );
}

/** Finds, imports and checks the configuration; `undefined` when there is none and none was named. */
export async function loadConfig(explicit: string | undefined, cwd = process.cwd()): Promise<LoadedConfig | undefined> {
  const file = explicit === undefined ? CONFIG_FILES.map((name) => join(cwd, name)).find((path) => existsSync(path)) : resolve(cwd, explicit);
  if (file === undefined) return undefined;
  if (!existsSync(file)) throw new UsageError(`--config ${explicit}: no such file`);
  let module: unknown;
  try {
    module = await importConfig(file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file} could not be loaded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  let exported = (module as { default?: unknown }).default;
  // A config compiled to CommonJS (TypeScript in a CommonJS app) arrives as `{ default: config }`.
  if (typeof exported === 'object' && exported !== null && 'default' in exported) exported = exported.default;
  if (exported === undefined) throw new UsageError(`${file} has no default export; write \`export default defineConfig({ ... })\``);
  const parsed = CellgateConfigSchema.safeParse(exported);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`);
    const more = problems.length > MAX_CONFIG_PROBLEMS_SHOWN ? ` (and ${problems.length - MAX_CONFIG_PROBLEMS_SHOWN} more)` : '';
    throw new UsageError(`${file}: ${problems.slice(0, MAX_CONFIG_PROBLEMS_SHOWN).join('; ')}${more}`);
  }
  return { file, config: parsed.data };
}

/**
 * The entity documents to use: the `--entity` files when any are given, else the configuration's
 * `entities` (file paths relative to the configuration file, or documents), else none.
 */
export async function entityDocuments(files: readonly string[], loaded: LoadedConfig | undefined): Promise<NamedDocument[]> {
  if (files.length > 0) return Promise.all(files.map(async (file) => ({ label: file, document: await readDocumentFile(file) })));
  if (loaded === undefined) return [];
  return Promise.all(
    (loaded.config.entities ?? []).map(async (entry, index) =>
      typeof entry === 'string'
        ? { label: entry, document: await readDocumentFile(resolve(dirname(loaded.file), entry)) }
        : { label: `${loaded.file}: entities.${index}`, document: entry },
    ),
  );
}

/** The entity documents of {@link entityDocuments}, or the reference host's demo entities when those name none. */
export async function entityDocumentsOrDemo(files: readonly string[], loaded: LoadedConfig | undefined): Promise<NamedDocument[]> {
  const named = await entityDocuments(files, loaded);
  if (named.length > 0) return named;
  const { DEMO_ENTITY_FILES, loadDemoEntity } = await import('../host/demo.ts');
  return DEMO_ENTITY_FILES.map((file) => ({ label: file, document: loadDemoEntity(file) }));
}

/** The storage URL of a command: its `--database-url` flag, else the configuration's `storage`, else `DATABASE_URL`. */
export function storageUrl(flag: string | undefined, loaded: LoadedConfig | undefined): string | undefined {
  return flag ?? loaded?.config.storage ?? process.env.DATABASE_URL;
}

/**
 * Loads the configuration named by `--config` (or found in the current directory) and says on
 * stderr which file the command uses, so a value that came from the file is never a surprise.
 */
export async function loadCommandConfig(command: string, explicit: string | undefined): Promise<LoadedConfig | undefined> {
  const loaded = await loadConfig(explicit);
  if (loaded) console.error(`cellgate ${command}: using ${loaded.file}`);
  return loaded;
}
