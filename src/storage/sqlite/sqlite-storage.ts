/**
 * `sqliteStorage()`: the SQL driver on better-sqlite3. better-sqlite3 is an optional peer
 * dependency, loaded with a dynamic import only when a `filename` is given; a `database` you pass
 * is used as is and never closed by cellgate.
 */
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { ConfigurationError } from '../../errors.ts';
import { loadOptionalPeer } from '../optional-peer.ts';
import { createSqlStorage, type SqlSchema, type VerifiableLogSwitch } from '../sql/index.ts';
import type { StorageDriver } from '../types.ts';
import { DEFAULT_SQLITE_BUSY_TIMEOUT_MS } from '../../limits.ts';
import { createSqliteDialect, SQLITE_BUSY_SLICE_MS, SQLITE_FOLD_FUNCTION } from './sqlite-dialect.ts';

/**
 * The parts of a better-sqlite3 `Database` cellgate uses (structural, so no type import of
 * better-sqlite3 is needed).
 */
export interface SqliteClient extends SqliteDatabase {
  /** Runs a PRAGMA (`journal_mode = WAL`, `busy_timeout = 5`, `foreign_keys = ON`). */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Registers a user function (cellgate registers a Unicode case-folding one for search). */
  function(name: string, options: { deterministic?: boolean }, implementation: (value: unknown) => unknown): unknown;
  /** True for an in-memory database (better-sqlite3 sets it). */
  readonly memory?: boolean;
}

/** Options of {@link sqliteStorage}: a database file, or a client you created. */
export type SqliteStorageOptions =
  | ({
      /**
       * Path of the database file; its folder is created when missing. `:memory:` keeps the data
       * in this process only.
       * @example './.cellgate/dev.db'
       */
      filename: string;
      /**
       * How long a write waits for another process's write lock before failing with 503. The
       * wait never blocks the event loop: short tries with timers in between.
       * @default 5000
       */
      busyTimeoutMs?: number;
    } & VerifiableLogSwitch)
  | ({
      /**
       * A better-sqlite3 `Database`, or a function returning one (called on first use). cellgate
       * applies its PRAGMAs and function to it but never closes it: that stays yours.
       */
      database: SqliteClient | (() => SqliteClient | Promise<SqliteClient>);
      /** @default 5000 */
      busyTimeoutMs?: number;
    } & VerifiableLogSwitch);

function prepare(client: SqliteClient, busyTimeoutMs: number): void {
  client.pragma('journal_mode = WAL');
  // Only a short synchronous wait: longer waits for the write lock are retried on timers (see
  // the dialect), so another process's lock never freezes this one.
  client.pragma(`busy_timeout = ${Math.min(SQLITE_BUSY_SLICE_MS, busyTimeoutMs)}`);
  client.pragma('foreign_keys = ON');
  // NORMAL is crash-safe in WAL mode (a killed process loses nothing committed); only an OS crash
  // or power loss may drop the last transactions.
  client.pragma('synchronous = NORMAL');
  client.function(SQLITE_FOLD_FUNCTION, { deterministic: true }, (value) => (value === null || value === undefined ? null : String(value).toLowerCase()));
}

/** Most prepared statements kept per connection; the generated SQL set is small and fixed per model. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew; preparing costs more than running these short statements, so
 * statements are reused by SQL text (one connection, run one at a time, so reuse is safe).
 */
function withStatementCache(client: SqliteClient, close: () => void): SqliteDatabase {
  const cache = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  return {
    prepare(source) {
      let statement = cache.get(source);
      if (statement === undefined) {
        statement = client.prepare(source);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(source, statement);
      }
      return statement;
    },
    close() {
      cache.clear();
      close();
    },
  };
}

async function openFile(filename: string): Promise<SqliteClient> {
  if (filename !== ':memory:' && filename !== '') {
    const [{ mkdir }, { dirname, resolve }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
    await mkdir(dirname(resolve(filename)), { recursive: true });
  }
  const { default: Database } = await loadOptionalPeer('better-sqlite3', 'sqliteStorage({ filename })', () => import('better-sqlite3'));
  return new Database(filename) as unknown as SqliteClient;
}

/**
 * A SQLite storage driver: the single-machine default. WAL journal, a busy timeout, foreign
 * keys on, one write transaction at a time (`BEGIN IMMEDIATE`).
 *
 * @example sqliteStorage
 * import { readFileSync } from 'node:fs';
 * import { createGovernedApi } from 'cellgate';
 * import { sqliteStorage } from 'cellgate/storage/sqlite';
 *
 * export const api = createGovernedApi({
 *   storage: sqliteStorage({ filename: './.cellgate/app.db' }), // needs better-sqlite3
 *   auth: { secret: process.env.CELLGATE_JWT_SECRET },
 *   resources: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))],
 * });
 * await api.migrate(); // creates or upgrades the tables
 */
export function sqliteStorage(options: SqliteStorageOptions): StorageDriver {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
  if (!Number.isFinite(busyTimeoutMs) || busyTimeoutMs < 0) throw new ConfigurationError('options.busyTimeoutMs', 'must be a number of milliseconds >= 0');
  let durable = true;
  let owned = false;
  let load: () => Promise<SqliteClient>;
  if ('filename' in options) {
    if (typeof options.filename !== 'string') throw new ConfigurationError('options.filename', 'must be a file path or ":memory:"');
    const filename = options.filename;
    durable = filename !== ':memory:' && filename !== '';
    owned = true;
    load = () => openFile(filename);
  } else if ('database' in options && options.database) {
    const database = options.database;
    if (typeof database !== 'function') durable = database.memory !== true;
    load = async () => (typeof database === 'function' ? database() : database);
  } else {
    throw new ConfigurationError('options', 'give either filename or database');
  }

  const dialect = new SqliteDialect({
    database: async () => {
      const client = await load();
      prepare(client, busyTimeoutMs);
      // Kysely closes its database on destroy(); a client the caller owns must survive that.
      return withStatementCache(client, owned ? () => client.close() : () => undefined);
    },
  });
  return createSqlStorage({
    name: 'sqlite',
    dialect: createSqliteDialect(busyTimeoutMs),
    db: new Kysely<SqlSchema>({ dialect }),
    capabilities: { durable, multiProcess: durable, appendOnlyAuditEnforced: true },
    ...(options.verifiableLog === undefined ? {} : { verifiableLog: options.verifiableLog }),
  });
}
