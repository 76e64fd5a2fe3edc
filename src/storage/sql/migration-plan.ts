/**
 * The refusals a generated migration file can resolve (docs/evolving-entities.md#migration-files):
 * a rename planned from `renamed_from`, and a column type change. Each carries the statements of
 * the change for the connected database, which `cellgate migrate --generate` writes to a file for
 * the app to review, commit and apply.
 */
import type { DriftRefusal } from '../drift.ts';
import type { SqlDialect } from './sql-dialect.ts';

/** The way forward of a refusal a migration file resolves. */
export const GENERATE_WAY =
  'Generate the migration (`cellgate migrate --generate`), review and commit the file, and apply it with `cellgate migrate`; then migrate again (docs/evolving-entities.md#migration-files).';

const id = (name: string) => `"${name}"`;

/** A column stored under its former name: renamed by a migration file. */
export function renameRefusal(_dialect: SqlDialect, table: string, from: string, to: string): DriftRefusal {
  return {
    table,
    column: to,
    stored: `column ${from} (the field's renamed_from)`,
    wanted: `column ${to}`,
    way: GENERATE_WAY,
    sql: `ALTER TABLE ${id(table)} RENAME COLUMN ${id(from)} TO ${id(to)}`,
  };
}

/** A column spec as the entity wants it (name, kind, NOT NULL). */
interface WantedColumn {
  name: string;
  kind: Parameters<SqlDialect['columnType']>[0];
  notNull: boolean;
}

/**
 * SQLite cannot change a column's type: the documented copy-and-swap. A new table with the
 * entity's columns (and the columns it no longer names, kept as they are), every row copied with
 * the changed columns CAST, the old table dropped and the new one renamed; in one transaction when
 * applied as a migration file. The entity's indexes are created again by the next `migrate`.
 */
export function sqliteRebuild(
  dialect: SqlDialect,
  table: string,
  wanted: readonly WantedColumn[],
  stored: ReadonlyMap<string, { type: string; notNull: boolean }>,
  changed: (name: string, storedType: string) => boolean,
): string {
  const next = `${table}__cellgate_new`;
  const kept = [...stored.entries()].filter(([name]) => !wanted.some((column) => column.name === name));
  const definitions = [
    ...wanted.map(
      (column) => `${id(column.name)} ${dialect.columnType(column.kind)}${column.notNull ? ' NOT NULL' : ''}${column.name === 'id' ? ' PRIMARY KEY' : ''}`,
    ),
    ...kept.map(([name, column]) => `${id(name)} ${column.type}${column.notNull ? ' NOT NULL' : ''}`),
  ];
  const copied = wanted.filter((column) => stored.has(column.name));
  const names = [...copied.map((column) => column.name), ...kept.map(([name]) => name)];
  const values = [
    ...copied.map((column) => {
      const before = stored.get(column.name)!;
      return changed(column.name, before.type) ? `CAST(${id(column.name)} AS ${dialect.columnType(column.kind)})` : id(column.name);
    }),
    ...kept.map(([name]) => id(name)),
  ];
  return [
    `CREATE TABLE ${id(next)} (${definitions.join(', ')})`,
    `INSERT INTO ${id(next)} (${names.map(id).join(', ')}) SELECT ${values.join(', ')} FROM ${id(table)}`,
    `DROP TABLE ${id(table)}`,
    `ALTER TABLE ${id(next)} RENAME TO ${id(table)}`,
  ].join(';\n');
}
