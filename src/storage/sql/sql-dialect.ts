/**
 * The per-database part of the SQL driver. Everything else (DDL shape, queries, codecs, errors
 * mapping) is shared; a dialect only says how a value kind is typed, encoded and decoded, how a
 * transaction and the migration lock are taken, and what a database error means.
 */
import type { Kysely, RawBuilder } from 'kysely';
import type { StorageField } from '../types.ts';

/** The database handle the shared implementation works with (tables are dynamic, so no schema type). */
export type SqlDb = Kysely<SqlSchema>;
/** A handle bound to one transaction (a Kysely `Transaction` or a connection inside BEGIN…COMMIT). */
export type SqlTx = Kysely<SqlSchema>;
/** Dynamic tables: the shared code builds every statement with `sql` and checked identifiers. */
export type SqlSchema = Record<string, never>;

/** How a column's values are stored; one kind per distinct typing/encoding rule. */
export type ColumnKind = 'text' | 'uuid' | 'double' | 'bigint' | 'int' | 'boolean' | 'timestamp' | 'json' | 'string_array';

/**
 * What a database error means for the caller, or undefined when it means nothing special (500):
 * `unique` a duplicate key, `retry` a serialization failure or deadlock (nothing committed),
 * `unavailable` the database cannot be reached or is restarting, `busy` a lock or statement
 * timeout (another change holds what this one needs), `full` the disk is full, `invalid` a value
 * the column type refuses.
 */
export type ErrorClass = 'unique' | 'retry' | 'unavailable' | 'busy' | 'full' | 'invalid';

/** The dialect object; see `sqlite/sqlite-dialect.ts` and `postgres/postgres-dialect.ts`. */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** Column type for a value kind, e.g. `jsonb` or `TEXT`. */
  columnType(kind: ColumnKind): string;
  /** Index column suffix putting NULLs first ascending ('' where that is already the default). */
  readonly nullsFirstIndex: string;
  /** Column type of the audit `seq`, an ever-increasing primary key. */
  readonly seqColumn: string;
  /** A JS value to a bound parameter of that kind (null stays null). */
  encode(kind: ColumnKind, value: unknown): unknown;
  /** A column value read back to its JS form (null stays null). */
  decode(kind: ColumnKind, value: unknown): unknown;
  /** Case folding used by contains/startsWith/search, so both sides fold the same way. */
  fold(expression: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The column as text, for substring matching on non-text columns (uuid). */
  asText(expression: RawBuilder<unknown>, kind: ColumnKind): RawBuilder<unknown>;
  /** Statements (idempotent) creating support functions, e.g. the case folding of {@link fold}. */
  supportDdl(): RawBuilder<unknown>[];
  /** Statements (idempotent) making the audit table reject UPDATE and DELETE. */
  appendOnlyAuditDdl(table: string): RawBuilder<unknown>[];
  /**
   * Statements (idempotent) replacing the append-only guard of the audit table by one that lets
   * UPDATE and DELETE through while the current transaction holds a row in `grantTable`.
   */
  maintenanceGuardDdl(auditTable: string, grantTable: string): RawBuilder<unknown>[];
  /** The key of the current transaction's grant row (PostgreSQL: its transaction id). */
  readonly maintenanceGrantKey: RawBuilder<unknown>;
  /** Names of the columns a table has (empty when it does not exist). */
  existingColumns(db: SqlDb | SqlTx, table: string): Promise<Set<string>>;
  /** Runs `fn` in one write transaction that also serialises concurrent migrations. */
  withMigrationLock<T>(db: SqlDb, fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  /** Runs `fn` in one write transaction. */
  transaction<T>(db: SqlDb, fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`, one writing statement, atomically: as it is where the database serialises a
   * single statement by itself (PostgreSQL), in a write transaction where taking the write lock
   * needs waiting for other processes (SQLite; at most `lockWaitMs` when given, else the
   * driver's busy timeout, before a `busy` error).
   */
  atomicWrite<T>(db: SqlDb, fn: (tx: SqlTx) => Promise<T>, lockWaitMs?: number): Promise<T>;
  /**
   * How long a statement outside a transaction is retried (on timers) while the database reports
   * it busy; undefined when busy means a timeout that a retry would only repeat (PostgreSQL).
   */
  readonly busyRetryMs?: number;
  /** Classifies an error thrown by the client. */
  classify(error: unknown): ErrorClass | undefined;
}

/** The value kind of a business field. */
export function fieldKind(field: StorageField): ColumnKind {
  switch (field.type) {
    case 'string':
      if (field.format === 'uuid') return 'uuid';
      return field.format === 'date-time' ? 'timestamp' : 'text';
    case 'integer':
      return 'bigint';
    case 'number':
      return 'double';
    case 'boolean':
      return 'boolean';
    case 'object':
    case 'array':
      return 'json';
  }
}
