/**
 * The SQL side of an online upgrade between majors (docs/decisions/B40.md): a keyset walk of an
 * entity table across tenants (the primary key orders it, so each batch is one index range read),
 * and the progress row, kept in `cellgate_migrations` under `upgrade:<from>><to>` names so the
 * bookkeeping of a schema lives in one table. Both run in the caller's transaction.
 */
import { sql } from 'kysely';
import type { EntityStorageModel, UpgradeOperations } from '../types.ts';
import { decodeRecord, type Row } from './codec.ts';
import { MIGRATIONS_TABLE } from './columns.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { mapErrors } from './sql-errors.ts';

/** The upgrade operations of a session over `db` (a database or a transaction). */
export function sqlUpgradeOperations(dialect: SqlDialect, db: SqlDb | SqlTx): UpgradeOperations {
  return {
    scanRecords(model: EntityStorageModel, after: string | null, limit: number) {
      return mapErrors(dialect, async () => {
        const table = sql.table(model.table);
        const from = after === null ? sql`` : sql`WHERE ${sql.ref('id')} > ${after}`;
        const { rows } = await sql<Row>`SELECT * FROM ${table} ${from} ORDER BY ${sql.ref('id')} LIMIT ${limit}`.execute(db);
        return rows.map((row) => decodeRecord(dialect, model, row));
      });
    },
    getProgress(name: string) {
      return mapErrors(dialect, async () => {
        const { rows } = await sql<{ checksum: string }>`SELECT checksum FROM ${sql.table(MIGRATIONS_TABLE)} WHERE name = ${name}`.execute(db);
        return rows[0]?.checksum ?? null;
      });
    },
    putProgress(name: string, value: string) {
      return mapErrors(dialect, async () => {
        await sql`INSERT INTO ${sql.table(MIGRATIONS_TABLE)} (name, checksum, applied_at) VALUES (${name}, ${value}, ${new Date().toISOString()})
          ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = excluded.applied_at`.execute(db);
      });
    },
  };
}
