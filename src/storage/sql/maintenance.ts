/**
 * The maintenance path of the SQL drivers: one write transaction that first writes its grant row
 * (the append-only guard of the audit table lets UPDATE and DELETE through only while the current
 * transaction holds one) and removes it before commit, so no committed state ever holds a grant.
 * A transaction that throws rolls its grant back with everything else.
 */
import { sql } from 'kysely';
import type { MaintenanceReason } from '../types.ts';
import { MAINTENANCE_TABLE } from './columns.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';

/** Runs `fn` in one transaction that holds a maintenance grant for `reason`. */
export function inMaintenance<T>(dialect: SqlDialect, db: SqlDb, reason: MaintenanceReason, fn: (tx: SqlTx) => Promise<T>): Promise<T> {
  return dialect.transaction(db, async (tx) => {
    const key = dialect.maintenanceGrantKey;
    await sql`INSERT INTO ${sql.table(MAINTENANCE_TABLE)} (grant_key, reason, started_at) VALUES (${key}, ${reason}, ${new Date().toISOString()})`.execute(tx);
    const result = await fn(tx);
    await sql`DELETE FROM ${sql.table(MAINTENANCE_TABLE)} WHERE grant_key = ${key}`.execute(tx);
    return result;
  });
}
