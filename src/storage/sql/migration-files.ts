/**
 * Migration files (docs/evolving-entities.md#migration-files): the changes `migrate` will not make
 * by itself (a rename from `renamed_from`, a column type change) are written by
 * `cellgate migrate --generate` to a numbered SQL file per driver, `<dir>/<NNNN>_<table>.<driver>.sql`,
 * which the app reviews, commits and applies with `cellgate migrate` (or {@link withMigrationFiles}
 * around its own `migrate()`). Each file runs in one transaction under the migration lock and is
 * recorded in `cellgate_migrations` as `file:<name>`: a file applied once is never run again, and a
 * failing file changes nothing (PostgreSQL and SQLite both roll DDL back).
 */
import { sql } from 'kysely';
import { MIGRATIONS_TABLE } from './columns.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';

/** One migration file: its name without the driver suffix (`0001_pm_task_v1`), its driver and its SQL. */
export interface MigrationFile {
  name: string;
  driver: 'sqlite' | 'postgres';
  sql: string;
}

/** `0001_pm_task_v1.sqlite.sql` → its parts; undefined for a file that is not a migration. */
export function parseMigrationFileName(file: string): { name: string; driver: 'sqlite' | 'postgres' } | undefined {
  const match = /^(\d{4,}_[a-z0-9_]+)\.(sqlite|postgres)\.sql$/.exec(file.length > 200 ? '' : file);
  return match ? { name: match[1]!, driver: match[2] as 'sqlite' | 'postgres' } : undefined;
}

/**
 * The statements of a file: each ends with `;` at the end of a line (what `--generate` writes);
 * lines starting with `--` are comments.
 */
export function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim().startsWith('--') || (current.length === 0 && line.trim() === '')) continue;
    current.push(line);
    if (line.trimEnd().endsWith(';')) {
      statements.push(current.join('\n').trimEnd().slice(0, -1));
      current = [];
    }
  }
  if (current.some((line) => line.trim() !== '')) statements.push(current.join('\n'));
  return statements;
}

/** The text of a generated file: a header saying what to review, then one statement per refusal. */
export function renderMigrationFile(driver: string, table: string, changes: ReadonlyArray<{ summary: string; sql: string }>): string {
  const header = [
    `-- cellgate migration for table ${table} (${driver}), written by \`cellgate migrate --generate\`.`,
    '-- Review it before you commit it: a type change converts every stored value with the CAST or USING below;',
    "-- map values the entity no longer accepts (e.g. CASE priority WHEN 1 THEN 'LOW' ... END), or the next migrate refuses them.",
    '-- Applied by `cellgate migrate` in one transaction, once (recorded in cellgate_migrations). Each statement ends with ";" at the end of a line.',
  ];
  const seen = new Set<string>();
  const body: string[] = [];
  for (const change of changes) {
    if (seen.has(change.sql)) continue;
    seen.add(change.sql);
    body.push(`-- ${change.summary}`, `${change.sql};`, '');
  }
  return `${[...header, '', ...body].join('\n')}`;
}

// A process-wide slot, like the migration observer (migrate.ts): the StorageDriver seam's
// `migrate(models)` has no options, and the command line reaches the driver through its public entry.
const FILES = Symbol.for('cellgate.migration-files');
type Slot = { [FILES]?: readonly MigrationFile[] };

/**
 * Runs `fn` (which calls `migrate()` on a SQL driver: `api.migrate()`, `storage.migrate(models)`)
 * with `files` to apply first: those of the driver's kind that are not recorded yet, in name order.
 *
 * @example
 * await withMigrationFiles(await readMigrationFiles('migrations'), () => api.migrate());
 */
export async function withMigrationFiles<T>(files: readonly MigrationFile[], fn: () => Promise<T>): Promise<T> {
  const slot = globalThis as Slot;
  slot[FILES] = files;
  try {
    return await fn();
  } finally {
    delete slot[FILES];
  }
}

/** The files handed to the running `migrate`, if any. */
export const pendingMigrationFiles = (): readonly MigrationFile[] => (globalThis as Slot)[FILES] ?? [];

const recorded = async (tx: SqlTx, name: string) =>
  (await sql`SELECT 1 FROM ${sql.table(MIGRATIONS_TABLE)} WHERE name = ${`file:${name}`}`.execute(tx)).rows.length > 0;

/**
 * Applies the files of this dialect not yet recorded, each in its own transaction under the
 * migration lock (checked again inside it, so two processes apply a file once). Answers the names applied.
 */
export async function applyMigrationFiles(
  db: SqlDb,
  dialect: SqlDialect,
  files: readonly MigrationFile[],
  ensureBookkeeping: (tx: SqlTx) => Promise<void>,
): Promise<string[]> {
  const applied: string[] = [];
  const mine = files.filter((file) => file.driver === dialect.name).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const file of mine) {
    const done = await dialect.withMigrationLock(db, async (tx) => {
      await ensureBookkeeping(tx);
      if (await recorded(tx, file.name)) return false;
      for (const statement of splitStatements(file.sql)) await sql.raw(statement).execute(tx);
      await sql`INSERT INTO ${sql.table(MIGRATIONS_TABLE)} (name, checksum, applied_at)
        VALUES (${`file:${file.name}`}, ${'applied'}, ${new Date().toISOString()})`.execute(tx);
      return true;
    });
    if (done) applied.push(file.name);
  }
  return applied;
}
