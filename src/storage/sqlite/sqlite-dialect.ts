/**
 * SQLite specifics: dynamic typing with explicit kinds (booleans as 0/1, JSON and timestamps as
 * text), `BEGIN IMMEDIATE` write transactions (the write lock is taken up front, so two
 * processes never both read-then-fail to upgrade), and a registered JS case-folding function
 * because SQLite's own `lower()`/`LIKE` fold ASCII only.
 */
import { sql, type RawBuilder } from 'kysely';
import { retryWhileBusy, type ColumnKind, type ErrorClass, type SqlDb, type SqlDialect, type SqlTx } from '../sql/index.ts';

/** Name of the case-folding function every connection registers. */
export const SQLITE_FOLD_FUNCTION = 'cellgate_fold';

const TYPES: Record<ColumnKind, string> = {
  text: 'TEXT',
  uuid: 'TEXT',
  double: 'REAL',
  bigint: 'INTEGER',
  int: 'INTEGER',
  boolean: 'INTEGER',
  timestamp: 'TEXT',
  json: 'TEXT',
  string_array: 'TEXT',
};

/**
 * How long one try to take the write lock may block the event loop (the connection's
 * `busy_timeout`): better-sqlite3 waits synchronously, so the wait for another process's lock is
 * a series of such short tries with timers in between, never one long blocking sleep.
 */
export const SQLITE_BUSY_SLICE_MS = 5;

/** The write lock was not free; carries the SQLite error. */
class LockBusy extends Error {}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_BUSY/.test(code);
}

/**
 * `BEGIN IMMEDIATE` … `COMMIT`, waiting up to `busyTimeoutMs` for the write lock. Between tries
 * the connection is released, so this process's reads go on while its write waits.
 */
async function immediate<T>(db: SqlDb, fn: (tx: SqlTx) => Promise<T>, busyTimeoutMs: number): Promise<T> {
  try {
    return await retryWhileBusy(
      () => beginImmediate(db, fn),
      (error) => error instanceof LockBusy,
      busyTimeoutMs,
    );
  } catch (error) {
    throw error instanceof LockBusy ? error.cause : error;
  }
}

/** One try: `BEGIN IMMEDIATE` failing because the lock is taken throws {@link LockBusy}. */
function beginImmediate<T>(db: SqlDb, fn: (tx: SqlTx) => Promise<T>): Promise<T> {
  // connection() holds Kysely's single SQLite connection for the whole callback, so nothing
  // else of this process interleaves with the transaction.
  return db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection).catch((error: unknown) => {
      throw isBusy(error) ? new LockBusy('busy', { cause: error }) : error;
    });
    try {
      const result = await fn(connection);
      await sql`COMMIT`.execute(connection);
      return result;
    } catch (error) {
      await sql`ROLLBACK`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}

function classify(error: unknown): ErrorClass | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') {
    return error instanceof TypeError && /database connection is not open/i.test(error.message) ? 'unavailable' : undefined;
  }
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') return 'unique';
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return 'busy';
  if (code === 'SQLITE_FULL') return 'full';
  if (/^SQLITE_(CANTOPEN|IOERR|READONLY|PROTOCOL)/.test(code)) return 'unavailable';
  if (code === 'SQLITE_TOOBIG' || code === 'SQLITE_MISMATCH') return 'invalid';
  return undefined;
}

/** The SQLite dialect object; a write waits up to `busyTimeoutMs` for another process's write lock. */
export const createSqliteDialect = (busyTimeoutMs: number): SqlDialect => ({
  name: 'sqlite',
  columnType: (kind) => TYPES[kind],
  // SQLite rejects NULLS FIRST in an index, and NULLs already sort first ascending.
  nullsFirstIndex: '',
  seqColumn: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  encode(kind, value) {
    if (value === null || value === undefined) return null;
    if (kind === 'boolean') return value ? 1 : 0;
    if (kind === 'json' || kind === 'string_array') return JSON.stringify(value);
    return value;
  },
  decode(kind, value) {
    if (value === null || value === undefined) return null;
    if (kind === 'boolean') return value === 1 || value === 1n;
    if (kind === 'json' || kind === 'string_array') return JSON.parse(String(value));
    if (typeof value === 'bigint') return Number(value);
    return value;
  },
  fold: (expression) => sql`${sql.raw(SQLITE_FOLD_FUNCTION)}(${expression})`,
  asText: (expression) => expression,
  // The folding function is registered on each connection instead (it is JavaScript).
  supportDdl: () => [],
  appendOnlyAuditDdl: (table) =>
    (['UPDATE', 'DELETE'] as const).map(
      (event) =>
        sql`CREATE TRIGGER IF NOT EXISTS ${sql.id(`${table}_no_${event.toLowerCase()}`)} BEFORE ${sql.raw(event)} ON ${sql.table(table)}
        BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END` as RawBuilder<unknown>,
    ),
  // SQLite writes one transaction at a time and never shows another connection uncommitted rows,
  // so "a grant row exists" means "this transaction is a maintenance transaction".
  maintenanceGuardDdl: (table, grantTable) =>
    (['UPDATE', 'DELETE'] as const).flatMap((event) => {
      const name = sql.id(`${table}_no_${event.toLowerCase()}`);
      return [
        sql`DROP TRIGGER IF EXISTS ${name}`,
        sql`CREATE TRIGGER ${name} BEFORE ${sql.raw(event)} ON ${sql.table(table)}
          WHEN NOT EXISTS (SELECT 1 FROM ${sql.table(grantTable)})
          BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END`,
      ] as RawBuilder<unknown>[];
    }),
  maintenanceGrantKey: sql`'maintenance'`,
  async existingColumns(db, table) {
    const { rows } = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(db);
    return new Set(rows.map((row) => row.name));
  },
  withMigrationLock: (db, fn) => immediate(db, fn, busyTimeoutMs),
  transaction: (db, fn) => immediate(db, fn, busyTimeoutMs),
  atomicWrite: (db, fn, lockWaitMs) => immediate(db, fn, lockWaitMs ?? busyTimeoutMs),
  busyRetryMs: busyTimeoutMs,
  classify,
});
