/**
 * `storage.vacuum(models, mode)` on SQL storage (docs/erasure.md#what-stays-on-disk): after an
 * erasure the old values stay in the database files until the space they took is reclaimed:
 * PostgreSQL keeps dead row versions until VACUUM, and SQLite keeps freed page content (and WAL
 * frames) until VACUUM and a checkpoint. Neither may run inside a transaction, so this runs on a
 * connection of its own, outside any.
 */
import { sql } from 'kysely';
import type { EntityStorageModel, VacuumMode } from '../types.ts';
import { retryWhileBusy } from './busy-retry.ts';
import { AUDIT_TABLE, EVENTS_TABLE, VERSION_TABLE } from './columns.ts';
import type { SqlDb, SqlDialect } from './sql-dialect.ts';

/** Vacuums the models' tables and the history tables an erasure rewrites. */
export async function vacuum(dialect: SqlDialect, db: SqlDb, models: readonly EntityStorageModel[], mode: VacuumMode): Promise<void> {
  if (dialect.name !== 'postgres') {
    // SQLite's VACUUM rebuilds the whole file (it takes no table list); the checkpoint then moves
    // the rebuilt pages into the file and truncates the WAL, which still held the old frames.
    const busy = (error: unknown) => dialect.classify(error) === 'busy';
    await retryWhileBusy(
      () =>
        db.connection().execute(async (connection) => {
          await sql`VACUUM`.execute(connection);
          await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(connection);
        }),
      busy,
      dialect.busyRetryMs ?? 0,
    );
    return;
  }
  const tables = [...new Set([...models.map((model) => model.table), VERSION_TABLE, AUDIT_TABLE, EVENTS_TABLE])].map((table) => sql.table(table));
  await db.connection().execute(async (connection) => {
    // A vacuum of large tables may run longer than the statement timeout meant for requests; the
    // lock timeout stays, so a FULL vacuum waiting for its exclusive lock gives up instead of
    // queueing every reader of the table behind it.
    await sql`SET statement_timeout = 0`.execute(connection);
    try {
      await sql`VACUUM ${sql.raw(mode === 'full' ? '(FULL) ' : '')}${sql.join(tables)}`.execute(connection);
    } finally {
      await sql`RESET statement_timeout`.execute(connection);
    }
  });
}
