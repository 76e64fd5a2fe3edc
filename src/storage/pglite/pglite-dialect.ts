/**
 * A Kysely dialect over PGlite (PostgreSQL compiled to WASM, one connection per instance): the
 * PostgreSQL adapter, compiler and introspector with a small driver of our own. PGlite runs one
 * statement at a time and its `transaction(fn)` holds the instance for the whole of `fn`, so a
 * Kysely transaction is one `transaction` call kept open from BEGIN to COMMIT or ROLLBACK: every
 * other query (ours or the application's on the same instance) waits for it instead of slipping
 * into it.
 */
import {
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/** What one PGlite statement answers (structural: the parts cellgate reads). */
export interface PgliteResults {
  rows: unknown[];
  /** Rows an INSERT, UPDATE or DELETE touched. */
  affectedRows?: number;
}

/** Something that runs one statement with `$1…` parameters: a PGlite instance or its transaction. */
export interface PgliteQueryable {
  query(sql: string, params?: unknown[], options?: { rowMode?: 'object'; parsers?: Record<number, (value: string) => unknown> }): Promise<PgliteResults>;
}

/**
 * The parts of a `PGlite` instance cellgate uses (structural, so no type import of
 * `@electric-sql/pglite` is needed): `query`, `transaction`, `close`, and `waitReady`.
 */
export interface PgliteLike extends PgliteQueryable {
  transaction<T>(fn: (tx: PgliteQueryable & { rollback(): Promise<void> }) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Resolves once the database has started. */
  readonly waitReady?: Promise<void>;
  /** Where the instance keeps its data (`memory://` when nowhere). */
  readonly dataDir?: string;
}

// int8 and numeric as text, as node-postgres reads them: PGlite would give a BigInt past 2^53,
// and the shared SQL code decodes one form for both PostgreSQL drivers.
const asText = (value: string) => value;
const QUERY_OPTIONS = { rowMode: 'object' as const, parsers: { 20: asText, 1700: asText } };

class PgliteConnection implements DatabaseConnection {
  #target: PgliteQueryable;
  #finish?: (outcome: 'commit' | 'rollback') => void;
  #done?: Promise<void>;

  constructor(private readonly db: PgliteLike) {
    this.#target = db;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.#target.query(query.sql, [...query.parameters], QUERY_OPTIONS);
    return { rows: result.rows as R[], ...(result.affectedRows === undefined ? {} : { numAffectedRows: BigInt(result.affectedRows) }) };
  }

  // biome-ignore lint/correctness/useYield: cellgate never streams; the method is part of the interface.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the PGlite driver does not stream query results');
  }

  /** Opens a PGlite transaction and keeps it open until {@link end}. */
  async begin(settings: TransactionSettings): Promise<void> {
    const outcome = new Promise<'commit' | 'rollback'>((resolve) => (this.#finish = resolve));
    let opened!: () => void;
    const started = new Promise<void>((resolve) => (opened = resolve));
    this.#done = this.db.transaction(async (tx) => {
      this.#target = tx;
      opened();
      if ((await outcome) === 'rollback') await tx.rollback();
    });
    // A failing BEGIN (a closed instance) rejects `done` before the callback ever runs.
    await Promise.race([started, this.#done]);
    const characteristics = [
      ...(settings.isolationLevel ? [`ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}`] : []),
      ...(settings.accessMode ? [settings.accessMode.toUpperCase()] : []),
    ];
    if (characteristics.length === 0) return;
    try {
      await this.#target.query(`SET TRANSACTION ${characteristics.join(' ')}`);
    } catch (error) {
      // Kysely rolls back only a transaction whose BEGIN succeeded: release the instance here.
      await this.end('rollback');
      throw error;
    }
  }

  /** Commits or rolls back the open transaction; rejects when COMMIT did not commit. */
  async end(outcome: 'commit' | 'rollback'): Promise<void> {
    this.#finish?.(outcome);
    try {
      await this.#done;
    } finally {
      this.#target = this.db;
      this.#finish = undefined;
      this.#done = undefined;
    }
  }
}

/** Options of {@link PgliteDialect}. */
export interface PgliteDialectOptions {
  /** The instance, resolved on first use (waited for until ready). */
  database: () => Promise<PgliteLike>;
  /** Called by `Kysely.destroy()`: closes an instance cellgate opened, nothing for one it was given. */
  release: (db: PgliteLike) => Promise<void>;
}

class PgliteDriver implements Driver {
  #db?: PgliteLike;

  constructor(private readonly options: PgliteDialectOptions) {}

  async init(): Promise<void> {
    const db = await this.options.database();
    await db.waitReady;
    this.#db = db;
  }

  // A connection is a view of the one instance; PGlite itself queues the statements.
  acquireConnection = async (): Promise<DatabaseConnection> => new PgliteConnection(this.#db!);
  beginTransaction = (connection: DatabaseConnection, settings: TransactionSettings) => (connection as PgliteConnection).begin(settings);
  commitTransaction = (connection: DatabaseConnection) => (connection as PgliteConnection).end('commit');
  rollbackTransaction = (connection: DatabaseConnection) => (connection as PgliteConnection).end('rollback');
  releaseConnection = async (): Promise<void> => undefined;

  async destroy(): Promise<void> {
    if (this.#db) await this.options.release(this.#db);
    this.#db = undefined;
  }
}

/** The PostgreSQL dialect of Kysely with a driver running on one PGlite instance. */
export class PgliteDialect implements Dialect {
  constructor(private readonly options: PgliteDialectOptions) {}

  createAdapter = () => new PostgresAdapter();
  createDriver = () => new PgliteDriver(this.options);
  createQueryCompiler = () => new PostgresQueryCompiler();
  createIntrospector = (db: Parameters<Dialect['createIntrospector']>[0]) => new PostgresIntrospector(db);
}
