/**
 * One {@link StorageDriver} for every SQL database Kysely speaks: `sqliteStorage()` and
 * `postgresStorage()` are this plus a dialect object. Reads outside a transaction use the pool;
 * `transaction(fn)` is one real database transaction, committed when `fn` resolves and rolled
 * back when it throws, retried once when the database reports a serialization failure or deadlock.
 */
import { CellgateError } from '../../errors.ts';
import type { MaintenanceSession, StorageCapabilities, StorageDriver, StorageSession } from '../types.ts';
import { retryWhileBusy } from './busy-retry.ts';
import { createGate } from './gate.ts';
import { migrate } from './migrate.ts';
import { createSqlRateLimitStore } from './rate-limit-store.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { createSqlErasureOperations } from './erasure.ts';
import { appendEvent, createSqlEventStore } from './events.ts';
import { inMaintenance } from './maintenance.ts';
import { createSqlLogStore } from './log-store.ts';
import { exportAudit } from './audit-export.ts';
import { createSqlRetention } from './retention.ts';
import { mapErrors, toStorageError } from './sql-errors.ts';
import { createSqlSession, sweepIdempotency } from './sql-session.ts';
import { createStatementCache } from './statement-cache.ts';
import { vacuum } from './vacuum.ts';

/** What a dialect package hands to {@link createSqlStorage}. */
export interface SqlStorageOptions {
  name: string;
  dialect: SqlDialect;
  db: SqlDb;
  capabilities: StorageCapabilities;
  /**
   * Most write transactions holding a connection at once, and how long one waits for its turn
   * before 503. Below the pool size, so reads always find a connection however many writes wait
   * on locks. Absent: no limit (SQLite has one connection, and a pool given by the user is sized
   * by the user).
   */
  transactionSlots?: { slots: number; waitMs: number };
  /** Keep the verifiable audit log (docs/verifiable-history.md). @default true */
  verifiableLog?: boolean;
}

/** The verifiable-log switch of the SQL drivers' options. */
export interface VerifiableLogSwitch {
  /**
   * Keep the verifiable audit log: every audit record a leaf of its tenant's Merkle tree, appended
   * in the write's transaction (docs/verifiable-history.md). `false` saves its two statements per
   * audited write and leaves `storage.log` undefined.
   * @default true
   */
  verifiableLog?: boolean;
}

/**
 * The session outside transactions, each call retried on timers while the database reports the
 * lock busy (SQLite: another process's write at a bad moment), up to the dialect's wait.
 */
function retryingWhenBusy(dialect: SqlDialect, session: StorageSession): StorageSession {
  const waitMs = dialect.busyRetryMs;
  if (waitMs === undefined) return session;
  const retry = busyRetry(dialect);
  const wrapped = Object.fromEntries(
    Object.entries(session).map(([name, call]) => [name, (...args: unknown[]) => retry(() => (call as (...a: unknown[]) => Promise<unknown>)(...args))]),
  );
  return wrapped as unknown as StorageSession;
}

/** The session of a maintenance transaction: the transaction's session and the history operations. */
function createSqlMaintenanceSession(
  dialect: SqlDialect,
  tx: SqlTx,
  cache: ReturnType<typeof createStatementCache>,
  reason: MaintenanceSession['reason'],
  withLog: boolean,
): MaintenanceSession {
  return { ...createSqlSession(dialect, tx, cache, withLog), ...createSqlErasureOperations(dialect, tx), ...createSqlRetention(dialect, tx), reason };
}

/** Runs a read again on timers while the database reports the lock busy, up to the dialect's wait (none: once). */
function busyRetry(dialect: SqlDialect): <T>(read: () => Promise<T>) => Promise<T> {
  const waitMs = dialect.busyRetryMs;
  if (waitMs === undefined) return (read) => read();
  const busy = (error: unknown) => dialect.classify(error instanceof CellgateError ? error.cause : error) === 'busy';
  return (read) => retryWhileBusy(read, busy, waitMs);
}

/** Builds the driver; `close()` destroys the Kysely instance (which closes only clients it owns). */
export function createSqlStorage(options: SqlStorageOptions): StorageDriver {
  const { dialect, db } = options;
  const cache = createStatementCache();
  const withLog = options.verifiableLog !== false;
  const direct = retryingWhenBusy(dialect, createSqlSession(dialect, db, cache, withLog));
  const retryBusyReads = busyRetry(dialect);

  const gate = options.transactionSlots ? createGate(options.transactionSlots.slots, options.transactionSlots.waitMs) : <T>(run: () => Promise<T>) => run();

  async function attempt<T>(fn: (session: StorageSession) => Promise<T>): Promise<T> {
    return gate(() => dialect.transaction(db, (tx) => fn(createSqlSession(dialect, tx, cache, withLog))));
  }

  return {
    ...direct,
    name: options.name,
    capabilities: options.capabilities,
    // Storage several processes share counts rate limits for all of them.
    ...(options.capabilities.multiProcess ? { rateLimitStore: createSqlRateLimitStore(dialect, db) } : {}),
    migrate: (models) => mapErrors(dialect, () => migrate(db, dialect, models)),
    async transaction(fn) {
      try {
        return await attempt(fn);
      } catch (error) {
        // A serialization failure or deadlock means nothing was committed; one retry usually wins.
        if (dialect.classify(error) === 'retry' || dialect.classify((error as { cause?: unknown })?.cause) === 'retry') {
          try {
            return await attempt(fn);
          } catch (second) {
            throw toStorageError(dialect, second);
          }
        }
        throw toStorageError(dialect, error);
      }
    },
    async maintenance(reason, fn) {
      try {
        return await gate(() => inMaintenance(dialect, db, reason, (tx) => fn(createSqlMaintenanceSession(dialect, tx, cache, reason, withLog))));
      } catch (error) {
        throw toStorageError(dialect, error);
      }
    },
    sweepIdempotency: (now, limit) => sweepIdempotency(dialect, db, now, limit),
    events: createSqlEventStore(dialect, db),
    ...(withLog ? { log: createSqlLogStore(dialect, db) } : {}),
    exportAudit: (query) => exportAudit(dialect, db, query, retryBusyReads),
    vacuum: (models, mode) => mapErrors(dialect, () => vacuum(dialect, db, models, mode)),
    // Outside a transaction the order lock must still cover the insert: give it one of its own.
    appendEvent: (event) => mapErrors(dialect, () => dialect.transaction(db, (tx) => appendEvent(dialect, tx, event))),
    close: () => db.destroy(),
  };
}
