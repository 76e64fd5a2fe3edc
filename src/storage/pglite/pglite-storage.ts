/**
 * `pgliteStorage()`: the PostgreSQL driver on PGlite, PostgreSQL compiled to WebAssembly and run
 * inside this process. The SQL, the dialect (types, triggers, advisory locks, `SKIP LOCKED`) and
 * so the behaviour are those of `postgresStorage()`; only the connection differs. For unit tests
 * with real PostgreSQL semantics and no server, and single-process apps. `@electric-sql/pglite`
 * is an optional peer dependency, loaded only when cellgate opens the database itself; an
 * instance you pass is used as is and never closed by cellgate.
 */
import { Kysely } from 'kysely';
import { ConfigurationError } from '../../errors.ts';
import { DEFAULT_PGLITE_TRANSACTION_WAIT_MS } from '../../limits.ts';
import { loadOptionalPeer } from '../optional-peer.ts';
import { postgresDialect } from '../postgres/postgres-dialect.ts';
import { createSqlStorage, type SqlSchema } from '../sql/index.ts';
import type { StorageDriver } from '../types.ts';
import { PgliteDialect, type PgliteLike } from './pglite-dialect.ts';

export type { PgliteLike, PgliteQueryable, PgliteResults } from './pglite-dialect.ts';

/** The data folder of an in-memory PGlite database. */
const IN_MEMORY = 'memory://';

/** Options of {@link pgliteStorage}: where the data lives, or an instance you created. */
export type PgliteStorageOptions = {
  /**
   * Longest a transaction waits for the others before 503 `SERVICE_UNAVAILABLE` with
   * `Retry-After`. PGlite has one connection, so transactions run one after another.
   * @default 5000
   */
  transactionWaitMs?: number;
} & (
  | {
      /**
       * A folder for the database files (created when missing), or `memory://` to keep the data
       * in this process only. One process at a time may open a folder.
       * @default 'memory://'
       * @example './.cellgate/pglite'
       */
      dataDir?: string;
    }
  | {
      /**
       * A `PGlite` instance (or anything with the same `query`/`transaction`/`close`), or a
       * function returning one (called on first use). cellgate never closes an instance you
       * pass. Give one to choose PGlite's own options (extensions, `relaxedDurability`) or to
       * share it with your code.
       */
      pglite: PgliteLike | (() => PgliteLike | Promise<PgliteLike>);
    }
);

/**
 * Data folders held by this process's drivers. PGlite does not lock its folder, and a second
 * instance on a folder in use corrupts it; within one process that mistake is refused here.
 */
const foldersInUse = new Set<string>();

/** Opens PGlite on `dataDir`; resolves it with the folder to give back on close (none in memory). */
async function open(dataDir: string): Promise<{ db: PgliteLike; folder?: string }> {
  const folder = dataDir.startsWith(IN_MEMORY) ? undefined : (await import('node:path')).resolve(dataDir);
  if (folder !== undefined) {
    if (foldersInUse.has(folder)) {
      throw new ConfigurationError(
        'options.dataDir',
        `"${dataDir}" is in use by another pgliteStorage() of this process (two PGlite instances on one folder corrupt it): close that driver first, or share one instance through options.pglite`,
      );
    }
    foldersInUse.add(folder);
  }
  try {
    if (folder !== undefined) await (await import('node:fs/promises')).mkdir(folder, { recursive: true });
    const { PGlite } = await loadOptionalPeer('@electric-sql/pglite', 'pgliteStorage()', () => import('@electric-sql/pglite'));
    const db = new PGlite(dataDir) as unknown as PgliteLike;
    await db.waitReady;
    return { db, ...(folder === undefined ? {} : { folder }) };
  } catch (error) {
    if (folder !== undefined) foldersInUse.delete(folder);
    throw error;
  }
}

/** Whether an instance keeps its data past the process (a data folder, not memory). */
function keepsData(db: PgliteLike): boolean {
  return typeof db.dataDir === 'string' && db.dataDir !== '' && !db.dataDir.startsWith(IN_MEMORY);
}

/**
 * A PostgreSQL storage driver running in this process on PGlite. One connection: transactions
 * are serialised (each waits at most `transactionWaitMs`), advisory locks and `SKIP LOCKED` act
 * within that connection, and rate limits are counted in the process (exact, since no other
 * process shares the database). Not `multiProcess`; `durable` with a data folder.
 *
 * @example
 * import { pgliteStorage } from 'cellgate/storage/pglite';
 * const storage = pgliteStorage(); // in memory: a fresh PostgreSQL per test
 * await storage.migrate([toStorageModel(invoiceDocument)]);
 */
export function pgliteStorage(options: PgliteStorageOptions = {}): StorageDriver {
  const waitMs = options.transactionWaitMs ?? DEFAULT_PGLITE_TRANSACTION_WAIT_MS;
  if (!Number.isInteger(waitMs) || waitMs < 1) throw new ConfigurationError('options.transactionWaitMs', 'must be a whole number of milliseconds >= 1');
  let database: () => Promise<PgliteLike>;
  let release = async (_db: PgliteLike): Promise<void> => undefined;
  let durable: boolean;
  if ('pglite' in options && options.pglite !== undefined) {
    const given = options.pglite;
    if (typeof given !== 'function' && (typeof given !== 'object' || given === null || typeof given.query !== 'function')) {
      throw new ConfigurationError('options.pglite', 'must be a PGlite instance or a function returning one');
    }
    // A factory's instance is unknown until first use: promise no durability it may not have.
    durable = typeof given !== 'function' && keepsData(given);
    database = async () => (typeof given === 'function' ? given() : given);
  } else {
    const dataDir = 'dataDir' in options && options.dataDir !== undefined ? options.dataDir : IN_MEMORY;
    if (typeof dataDir !== 'string' || dataDir.trim() === '') throw new ConfigurationError('options.dataDir', 'must be a folder path or "memory://"');
    durable = !dataDir.startsWith(IN_MEMORY);
    let folder: string | undefined;
    database = async () => {
      const opened = await open(dataDir);
      folder = opened.folder;
      return opened.db;
    };
    release = async (db) => {
      try {
        await db.close();
      } finally {
        if (folder) foldersInUse.delete(folder);
      }
    };
  }
  return createSqlStorage({
    name: 'pglite',
    dialect: postgresDialect,
    db: new Kysely<SqlSchema>({ dialect: new PgliteDialect({ database, release }) }),
    capabilities: { durable, multiProcess: false, appendOnlyAuditEnforced: true },
    // One connection: a queue of transactions, each bounded in how long it waits for its turn.
    transactionSlots: { slots: 1, waitMs },
  });
}
