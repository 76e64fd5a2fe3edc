/**
 * `postgresStorage()`: the SQL driver on node-postgres. `pg` is an optional peer dependency,
 * loaded with a dynamic import only when a `connectionString` is given; a `pool` you pass is used
 * as is and never ended by cellgate.
 */
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import { ConfigurationError } from '../../errors.ts';
import { createSqlStorage, type SqlSchema } from '../sql/index.ts';
import type { StorageDriver } from '../types.ts';
import { postgresDialect } from './postgres-dialect.ts';

/** The parts of a `pg.Pool` cellgate uses (structural: `connect()` and `end()`). */
export type PostgresPoolLike = PostgresPool;

/** Options of {@link postgresStorage}: a connection string, or a pool you created. */
export type PostgresStorageOptions =
  | {
      /**
       * A libpq connection URL.
       * @example 'postgres://app:secret@db.internal:5432/app'
       */
      connectionString: string;
      /**
       * Most connections the pool opens.
       * @default 10
       */
      max?: number;
    }
  | {
      /**
       * A `pg.Pool` (or anything with the same `connect()`/`end()`), or a function returning one
       * (called on first use). cellgate never ends a pool you pass.
       */
      pool: PostgresPoolLike | (() => PostgresPoolLike | Promise<PostgresPoolLike>);
    };

async function createPool(connectionString: string, max: number): Promise<PostgresPoolLike> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString, max });
  // An idle client losing its server emits 'error' on the pool; unheard, that would crash the
  // process. The next query reports the outage as 503 instead.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A PostgreSQL storage driver: many stateless host processes may share one database; the
 * version check is a conditional UPDATE whose row count decides, so it holds across processes.
 *
 * @example
 * import { postgresStorage } from 'cellgate/storage/postgres';
 * const storage = postgresStorage({ connectionString: process.env.DATABASE_URL! });
 */
export function postgresStorage(options: PostgresStorageOptions): StorageDriver {
  let pool: () => Promise<PostgresPoolLike>;
  if ('connectionString' in options) {
    const { connectionString, max = 10 } = options;
    if (typeof connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(connectionString)) {
      throw new ConfigurationError('options.connectionString', 'must be a postgres:// or postgresql:// URL');
    }
    if (!Number.isInteger(max) || max < 1) throw new ConfigurationError('options.max', 'must be a positive integer');
    pool = () => createPool(connectionString, max);
  } else if ('pool' in options && options.pool) {
    const given = options.pool;
    pool = async () => {
      const resolved = typeof given === 'function' ? await given() : given;
      // Kysely ends its pool on destroy(); a pool the caller owns must survive that.
      return { connect: () => resolved.connect(), end: async () => undefined };
    };
  } else {
    throw new ConfigurationError('options', 'give either connectionString or pool');
  }
  return createSqlStorage({
    name: 'postgres',
    dialect: postgresDialect,
    db: new Kysely<SqlSchema>({ dialect: new PostgresDialect({ pool }) }),
    capabilities: { durable: true, multiProcess: true, appendOnlyAuditEnforced: true },
  });
}
