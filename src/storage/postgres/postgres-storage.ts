/**
 * `postgresStorage()`: the SQL driver on node-postgres. `pg` is an optional peer dependency,
 * loaded with a dynamic import only when a `connectionString` is given; a `pool` you pass is used
 * as is and never ended by cellgate.
 *
 * No database error ends the process: the pool and every client cellgate checks out have an
 * `error` listener (pg emits `error` on a client whose server goes away, even in the middle of a
 * query, and an unheard `error` event kills Node). The failing request answers 503 with
 * `Retry-After`, pg drops the broken client when it is released, and the next checkout connects
 * afresh, so the pool recovers by itself once the database is back.
 */
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { CellgateError, ConfigurationError } from '../../errors.ts';
import {
  DEFAULT_PG_CONNECTION_TIMEOUT_MS,
  DEFAULT_PG_LOCK_TIMEOUT_MS,
  DEFAULT_PG_STATEMENT_TIMEOUT_MS,
  DEFAULT_REPLICA_MAX_LAG_MS,
  DEFAULT_REPLICA_WAIT_MS,
} from '../../limits.ts';
import { loadOptionalPeer } from '../optional-peer.ts';
import { createSqlStorage, type SqlDialect, type SqlSchema, type VerifiableLogSwitch } from '../sql/index.ts';
import type { StorageDriver } from '../types.ts';
import { failoverPool, splitHosts } from './multi-host.ts';
import { postgresDialect } from './postgres-dialect.ts';
import { createReplicaSet } from './replicas/replica-set.ts';
import { withReplicas } from './replicas/routed-storage.ts';

/** The parts of a `pg.Pool` cellgate uses (structural: `connect()` and `end()`). */
export type PostgresPoolLike = PostgresPool;

/** Time limits of {@link postgresStorage}, in milliseconds; `0` turns one off. */
export interface PostgresTimeouts {
  /**
   * How long a statement waits for a row lock (another change holding the record) before the
   * request answers 503 with `Retry-After`. PostgreSQL's `lock_timeout`.
   * @default 2000 (with `connectionString`); with a `pool`, the pool's own setting unless given
   */
  lockTimeoutMs?: number;
  /**
   * Longest any statement of a transaction may run. PostgreSQL's `statement_timeout`, set per
   * transaction (`SET LOCAL`); a single read outside a transaction runs under the role's own
   * setting (`ALTER ROLE app SET statement_timeout = '10s'` bounds those too, docs/storage.md).
   * @default 10000 (with `connectionString`); with a `pool`, the pool's own setting unless given
   */
  statementTimeoutMs?: number;
}

/** Read replicas of {@link postgresStorage} (docs/scaling-out.md, B37). */
export interface ReplicaOptions {
  /**
   * Streaming replicas (hot standbys) of the primary, as URLs (pooled like the primary, same
   * `max`) or pools of yours. Reads of GET and HEAD requests that may be slightly behind
   * (records, lists, versions, audit, export, the feed) go to one in rotation; everything else
   * stays on the primary.
   * @default [] (every read on the primary)
   */
  replicas?: ReadonlyArray<string | PostgresPoolLike>;
  /**
   * A replica further behind the primary than this (by replay time) is out of rotation, so a
   * read without a token is at most about this much behind.
   * @default 5000
   */
  maxLagMs?: number;
  /**
   * Longest a read carrying a `Cellgate-Consistency` token waits for a replica to replay past it;
   * then the primary serves it.
   * @default 100
   */
  replicaWaitMs?: number;
}

/** Options of {@link postgresStorage}: a connection string, or a pool you created. */
export type PostgresStorageOptions =
  | (PostgresTimeouts &
      ReplicaOptions &
      VerifiableLogSwitch & {
        /**
         * A libpq connection URL.
         * @example 'postgres://app:secret@db.internal:5432/app'
         */
        connectionString: string;
        /**
         * Most connections the pool opens. A quarter of them (at least one, when `max` > 1) is
         * kept for reads: write transactions never take them, so reads go on while writes wait on
         * locks.
         * @default 10
         */
        max?: number;
        /**
         * Longest wait for a connection (or, for a write, for a free transaction slot) before the
         * request answers 503 with `Retry-After` instead of queueing without end.
         * @default 5000
         */
        connectionTimeoutMs?: number;
      })
  | (PostgresTimeouts &
      ReplicaOptions &
      VerifiableLogSwitch & {
        /**
         * A `pg.Pool` (or anything with the same `connect()`/`end()`), or a function returning one
         * (called on first use). cellgate never ends a pool you pass. Give the timeouts to set them
         * per transaction (`SET LOCAL`, one more statement per write); size and connection timeout
         * are the pool's own (`max`, `connectionTimeoutMillis`).
         */
        pool: PostgresPoolLike | (() => PostgresPoolLike | Promise<PostgresPoolLike>);
      });

const quiet = () => undefined;
const guarded = new WeakSet<object>();

/**
 * A pool whose checked-out clients always have an `error` listener: pg emits `error` on a client
 * whose connection dies while it is checked out (a server restart, `pg_terminate_backend`), and
 * Node ends the process on an unheard `error` event. The query in flight rejects on its own.
 */
function guard(pool: PostgresPoolLike, end: () => Promise<void>): PostgresPoolLike {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      if (!guarded.has(client)) {
        guarded.add(client);
        (client as unknown as { on(event: 'error', listener: () => void): void }).on('error', quiet);
      }
      return client;
    },
    end,
  };
}

function checkTimeout(path: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 0)) throw new ConfigurationError(path, 'must be a whole number of milliseconds >= 0');
}

/** Write transactions allowed at once for a pool of `max`: all but a quarter (at least one) kept for reads. */
export function transactionSlotsFor(max: number): number {
  return max <= 1 ? 1 : max - Math.max(1, Math.floor(max / 4));
}

/** One line naming what went wrong: the first of a multi-address connect, with its code. */
function describeCause(error: unknown): string {
  const nested = (error as { errors?: unknown } | null)?.errors;
  if (Array.isArray(nested) && nested.length > 0) return describeCause(nested[0]);
  const message = (error instanceof Error ? error.message : String(error)).split('\n', 1)[0]!;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return message || 'unknown error';
  return message.includes(code) ? message : `${message || 'error'} (${code})`;
}

/**
 * The driver's `migrate()` is what a host runs at start: when it cannot reach the database, its
 * 503 names where it tried and why (host, port, database, cause; never the password).
 */
function withStartDiagnosis(storage: StorageDriver, connectionString: string): StorageDriver {
  // A multi-host URL is named by its first host.
  const url = new URL((splitHosts(connectionString) ?? [connectionString])[0]!);
  const where = `PostgreSQL at ${url.hostname}:${url.port || '5432'}${url.pathname.length > 1 ? ` (database ${decodeURIComponent(url.pathname.slice(1))})` : ''}`;
  const migrate: StorageDriver['migrate'] = async (models) => {
    try {
      await storage.migrate(models);
    } catch (error) {
      // A missing `pg` package is the app's set-up, not an outage: it stays a ConfigurationError.
      if (error instanceof ConfigurationError) throw error;
      const cause = error instanceof CellgateError ? error.cause : error;
      if (error instanceof CellgateError && error.code !== 'SERVICE_UNAVAILABLE') throw error;
      throw new CellgateError('SERVICE_UNAVAILABLE', `cannot use ${where}: ${describeCause(cause)}`, {
        headers: { 'Retry-After': '1' },
        cause,
      });
    }
  };
  return { ...storage, migrate };
}

async function createPool(connectionString: string, max: number, connectionTimeoutMs: number): Promise<PostgresPoolLike> {
  const { default: pg } = await loadOptionalPeer('pg', 'postgresStorage({ connectionString })', () => import('pg'));
  // No start-up parameters beyond the connection string's own (B38): PgBouncer in transaction
  // mode refuses `statement_timeout` and `lock_timeout` there ("unsupported startup parameter")
  // and would not carry a session setting across transactions anyway. The timeouts are set per
  // transaction instead (withLocalTimeouts).
  const open = (url: string) => {
    const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: connectionTimeoutMs });
    // An idle client losing its server emits 'error' on the pool; unheard, that would crash the
    // process. The next query reports the outage as 503 instead.
    pool.on('error', quiet);
    // Heard from birth, not only from the first checkout.
    pool.on('connect', (client) => client.on('error', quiet));
    return pool;
  };
  // A multi-host URL: a pool per host, checked out from the writable one (B38).
  const hosts = splitHosts(connectionString);
  const pool = hosts === undefined ? open(connectionString) : failoverPool(hosts.map(open));
  return guard(pool, () => pool.end());
}

/**
 * The dialect with the timeouts set per transaction (`set_config(…, true)`, i.e. `SET LOCAL`): one
 * statement at the start of each transaction, which holds through a transaction-mode pooler
 * since the setting ends with the transaction that set it.
 */
function withLocalTimeouts(timeouts: PostgresTimeouts): SqlDialect {
  const settings = [
    ...(timeouts.lockTimeoutMs === undefined ? [] : [sql`set_config('lock_timeout', ${`${timeouts.lockTimeoutMs}ms`}, true)`]),
    ...(timeouts.statementTimeoutMs === undefined ? [] : [sql`set_config('statement_timeout', ${`${timeouts.statementTimeoutMs}ms`}, true)`]),
  ];
  if (settings.length === 0) return postgresDialect;
  return {
    ...postgresDialect,
    transaction: (db, fn) =>
      db.transaction().execute(async (tx) => {
        await sql`SELECT ${sql.join(settings)}`.execute(tx);
        return fn(tx);
      }),
  };
}

/** A pool of the caller's (never ended by cellgate) or one created from a URL, as Kysely takes it. */
function poolSource(
  given: string | PostgresPoolLike | (() => PostgresPoolLike | Promise<PostgresPoolLike>),
  max: number,
  connectionTimeoutMs: number,
): () => Promise<PostgresPoolLike> {
  if (typeof given === 'string') return () => createPool(given, max, connectionTimeoutMs);
  return async () => {
    const resolved = typeof given === 'function' ? await given() : given;
    // Kysely ends its pool on destroy(); a pool the caller owns must survive that.
    return guard(resolved, async () => undefined);
  };
}

/** A URL libpq would take: one host, or several of which none is empty. */
function validHosts(connectionString: string): boolean {
  const hosts = splitHosts(connectionString);
  if (hosts === undefined) return URL.canParse(connectionString);
  return hosts.every((url) => URL.canParse(url) && new URL(url).hostname !== '');
}

function checkReplicas(options: ReplicaOptions): void {
  const { replicas, maxLagMs, replicaWaitMs } = options;
  if (replicas !== undefined) {
    if (!Array.isArray(replicas)) throw new ConfigurationError('options.replicas', 'must be a list of postgres:// URLs or pools');
    replicas.forEach((replica, index) => {
      const url = typeof replica === 'string';
      if (url ? !/^postgres(ql)?:\/\//.test(replica) || !URL.canParse(replica) : typeof (replica as { connect?: unknown })?.connect !== 'function') {
        throw new ConfigurationError(`options.replicas.${index}`, 'must be a postgres:// or postgresql:// URL or a pg.Pool');
      }
    });
  }
  checkTimeout('options.maxLagMs', maxLagMs);
  checkTimeout('options.replicaWaitMs', replicaWaitMs);
}

/**
 * A PostgreSQL storage driver: many stateless host processes may share one database; the
 * version check is a conditional UPDATE whose row count decides, so it holds across processes.
 * Rate limits are counted in the database too (`cellgate_rate_limit`). With `replicas`, reads
 * that may be slightly behind go to streaming replicas, with read-your-writes through the
 * `Cellgate-Consistency` token (docs/scaling-out.md).
 *
 * @example postgresStorage
 * import { readFileSync } from 'node:fs';
 * import { createGovernedApi } from 'cellgate';
 * import { postgresStorage } from 'cellgate/storage/postgres';
 *
 * export const api = createGovernedApi({
 *   storage: postgresStorage({ connectionString: process.env.DATABASE_URL ?? 'postgres://localhost/app', lockTimeoutMs: 1000 }), // needs pg
 *   auth: { secret: process.env.CELLGATE_JWT_SECRET },
 *   resources: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))],
 * });
 * await api.migrate(); // one process migrates at a time (advisory lock)
 */
export function postgresStorage(options: PostgresStorageOptions): StorageDriver {
  checkTimeout('options.lockTimeoutMs', options.lockTimeoutMs);
  checkTimeout('options.statementTimeoutMs', options.statementTimeoutMs);
  checkReplicas(options);
  const capabilities = { durable: true, multiProcess: true, appendOnlyAuditEnforced: true };
  const logSwitch = options.verifiableLog === undefined ? {} : { verifiableLog: options.verifiableLog };
  let primary: { storage: StorageDriver; db: Kysely<SqlSchema> };
  let dialect: SqlDialect;
  let replicaPool: (given: string | PostgresPoolLike) => () => Promise<PostgresPoolLike>;
  if ('connectionString' in options) {
    const { connectionString, max = 10, connectionTimeoutMs = DEFAULT_PG_CONNECTION_TIMEOUT_MS } = options;
    if (typeof connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(connectionString) || !validHosts(connectionString)) {
      throw new ConfigurationError('options.connectionString', 'must be a postgres:// or postgresql:// URL (several hosts: host1:port,host2:port)');
    }
    if (!Number.isInteger(max) || max < 1) throw new ConfigurationError('options.max', 'must be a positive integer');
    checkTimeout('options.connectionTimeoutMs', connectionTimeoutMs);
    dialect = withLocalTimeouts({
      lockTimeoutMs: options.lockTimeoutMs ?? DEFAULT_PG_LOCK_TIMEOUT_MS,
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_PG_STATEMENT_TIMEOUT_MS,
    });
    const db = new Kysely<SqlSchema>({ dialect: new PostgresDialect({ pool: poolSource(connectionString, max, connectionTimeoutMs) }) });
    const storage = createSqlStorage({
      name: 'postgres',
      dialect,
      db,
      capabilities,
      ...logSwitch,
      // 0 = wait without end, as pg does; a huge wait stands in for it.
      transactionSlots: { slots: transactionSlotsFor(max), waitMs: connectionTimeoutMs || 2 ** 31 - 1 },
    });
    primary = { storage: withStartDiagnosis(storage, connectionString), db };
    replicaPool = (given) => poolSource(given, max, connectionTimeoutMs);
  } else if ('pool' in options && options.pool) {
    dialect = withLocalTimeouts(options);
    const db = new Kysely<SqlSchema>({ dialect: new PostgresDialect({ pool: poolSource(options.pool, 1, 0) }) });
    primary = { storage: createSqlStorage({ name: 'postgres', dialect, db, capabilities, ...logSwitch }), db };
    replicaPool = (given) => poolSource(given, 10, DEFAULT_PG_CONNECTION_TIMEOUT_MS);
  } else throw new ConfigurationError('options', 'give either connectionString or pool');
  if (!options.replicas || options.replicas.length === 0) return primary.storage;
  const members = options.replicas.map((given) => {
    const db = new Kysely<SqlSchema>({ dialect: new PostgresDialect({ pool: replicaPool(given) }) });
    // A replica serves reads only: no migrate, no transaction ever reaches it (routed-storage.ts).
    return { db, driver: createSqlStorage({ name: 'postgres', dialect, db, capabilities, ...logSwitch }) };
  });
  const set = createReplicaSet(members, {
    maxLagMs: options.maxLagMs ?? DEFAULT_REPLICA_MAX_LAG_MS,
    waitMs: options.replicaWaitMs ?? DEFAULT_REPLICA_WAIT_MS,
  });
  return withReplicas(primary.storage, primary.db, set);
}
