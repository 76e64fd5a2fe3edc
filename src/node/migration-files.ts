/**
 * Migration files on disk (docs/evolving-entities.md#migration-files): read a folder of
 * `<NNNN>_<table>.<driver>.sql` files for `withMigrationFiles`, and write the next numbered file
 * for `cellgate migrate --generate`.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigurationError } from '../errors.ts';
import { MAX_MIGRATION_FILE_BYTES } from '../limits.ts';
import { parseMigrationFileName, type MigrationFile } from '../storage/sql/migration-files.ts';

export { withMigrationFiles, type MigrationFile } from '../storage/sql/migration-files.ts';

/**
 * The migration files of `dir` (both drivers; each `migrate` applies its own), or none when the
 * folder does not exist. Other files are ignored.
 *
 * @example
 * import { readMigrationFiles, withMigrationFiles } from 'cellgate/node';
 * await withMigrationFiles(await readMigrationFiles('migrations'), () => api.migrate());
 */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const files: MigrationFile[] = [];
  for (const entry of entries.sort()) {
    const parsed = parseMigrationFileName(entry);
    if (!parsed) continue;
    const path = join(dir, entry);
    // Checked before the file is read whole.
    if ((await stat(path)).size > MAX_MIGRATION_FILE_BYTES)
      throw new ConfigurationError(path, `a migration file may hold at most ${MAX_MIGRATION_FILE_BYTES} bytes`);
    const text = await readFile(path, 'utf8');
    files.push({ ...parsed, sql: text });
  }
  return files;
}

/** Writes `text` as the next numbered file of `dir` (created when missing); answers its path. */
export async function writeNextMigrationFile(dir: string, table: string, driver: 'sqlite' | 'postgres', text: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const numbers = (await readdir(dir)).map((entry) => Number.parseInt(entry, 10)).filter((n) => Number.isSafeInteger(n));
  const next = String(Math.max(0, ...numbers) + 1).padStart(4, '0');
  const path = join(dir, `${next}_${table}.${driver}.sql`);
  await writeFile(path, text, { flag: 'wx' });
  return path;
}
