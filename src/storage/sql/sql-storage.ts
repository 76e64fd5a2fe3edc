/**
 * One {@link StorageDriver} for every SQL database Kysely speaks: `sqliteStorage()` and
 * `postgresStorage()` are this plus a dialect object. Reads outside a transaction use the pool;
 * `transaction(fn)` is one real database transaction, committed when `fn` resolves and rolled
 * back when it throws, retried once when the database reports a serialization failure or deadlock.
 */
import type { StorageCapabilities, StorageDriver, StorageSession } from '../types.ts';
import { migrate } from './migrate.ts';
import type { SqlDb, SqlDialect } from './sql-dialect.ts';
import { appendEvent, createSqlEventStore } from './events.ts';
import { mapErrors, toStorageError } from './sql-errors.ts';
import { createSqlSession, sweepIdempotency } from './sql-session.ts';
import { createStatementCache } from './statement-cache.ts';

/** What a dialect package hands to {@link createSqlStorage}. */
export interface SqlStorageOptions {
  name: string;
  dialect: SqlDialect;
  db: SqlDb;
  capabilities: StorageCapabilities;
}

/** Builds the driver; `close()` destroys the Kysely instance (which closes only clients it owns). */
export function createSqlStorage(options: SqlStorageOptions): StorageDriver {
  const { dialect, db } = options;
  const cache = createStatementCache();
  const direct = createSqlSession(dialect, db, cache);

  async function attempt<T>(fn: (session: StorageSession) => Promise<T>): Promise<T> {
    return dialect.transaction(db, (tx) => fn(createSqlSession(dialect, tx, cache)));
  }

  return {
    ...direct,
    name: options.name,
    capabilities: options.capabilities,
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
    sweepIdempotency: (now, limit) => sweepIdempotency(dialect, db, now, limit),
    events: createSqlEventStore(dialect, db),
    // Outside a transaction the order lock must still cover the insert: give it one of its own.
    appendEvent: (event) => mapErrors(dialect, () => dialect.transaction(db, (tx) => appendEvent(dialect, tx, event))),
    close: () => db.destroy(),
  };
}
