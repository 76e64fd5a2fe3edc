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
import { LOG_LEAVES_TABLE } from './log-schema.ts';
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
  // The log's leaves too: an erasure rewrites their openings, and an old row version keeps a salt.
  const tables = [...new Set([...models.map((model) => model.table), VERSION_TABLE, AUDIT_TABLE, EVENTS_TABLE, LOG_LEAVES_TABLE])].map((table) =>
    sql.table(table),
  );
  // One statement and no session setting around it (B38): behind a transaction-mode pooler a
  // `SET` before it could land on another server connection and stay there. The driver sets its
  // request timeouts per transaction only, so the vacuum runs under the role's own settings.
  await sql`VACUUM ${sql.raw(mode === 'full' ? '(FULL) ' : '')}${sql.join(tables)}`.execute(db);
}
