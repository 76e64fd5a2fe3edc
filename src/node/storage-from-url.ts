/**
 * `storageFromUrl`: a storage URL (what an app keeps in `DATABASE_URL`) → a storage driver:
 * `memory:`, `sqlite:<file path>` (`sqlite::memory:`), `postgres://…` / `postgresql://…`,
 * `pglite:<folder>` (`pglite:memory:`). The SQL
 * drivers come from their own subpaths, loaded only when a URL asks for them, so an app installs
 * only the database package it uses (docs/storage.md#from-a-url).
 */
import { ConfigurationError, memoryStorage, type StorageDriver } from 'cellgate';
import type { PgliteStorageOptions } from 'cellgate/storage/pglite';
import type { PostgresStorageOptions } from 'cellgate/storage/postgres';
import type { SqliteStorageOptions } from 'cellgate/storage/sqlite';

/** Driver options that a URL cannot carry, per kind of URL; each applies only to its kind. */
export interface StorageFromUrlOptions {
  /** Options of `sqliteStorage` for a `sqlite:` URL (the file comes from the URL). */
  sqlite?: Omit<Extract<SqliteStorageOptions, { filename: string }>, 'filename'>;
  /** Options of `postgresStorage` for a `postgres://` URL (pool size, timeouts). */
  postgres?: Omit<Extract<PostgresStorageOptions, { connectionString: string }>, 'connectionString'>;
  /** Options of `pgliteStorage` for a `pglite:` URL (the folder comes from the URL). */
  pglite?: Pick<PgliteStorageOptions, 'transactionWaitMs'>;
}

/** What a storage URL names, checked. */
export type StorageUrl =
  | { kind: 'memory' }
  | { kind: 'sqlite'; filename: string }
  | { kind: 'postgres'; connectionString: string }
  | { kind: 'pglite'; dataDir: string };

const FORMS = 'memory:, sqlite:<file path>, sqlite::memory:, pglite:<folder>, pglite:memory: or postgres://user:password@host:port/database';

/** The URL with any password masked, for messages. */
const masked = (value: string): string => value.replace(/:[^:@/]*@/, ':***@');

/**
 * Reads a storage URL without opening anything. A missing or bad URL throws a
 * {@link ConfigurationError} (path `DATABASE_URL`) whose message is one printable line and never
 * shows a password.
 *
 * @example
 * parseStorageUrl('sqlite:./data/app.db'); // { kind: 'sqlite', filename: './data/app.db' }
 */
export function parseStorageUrl(url: string | undefined): StorageUrl {
  const value = typeof url === 'string' ? url.trim() : '';
  if (value === '') throw new ConfigurationError('DATABASE_URL', `is not set; expected ${FORMS}`);
  if (value === 'memory:') return { kind: 'memory' };
  if (value.startsWith('sqlite:')) {
    const filename = value.slice('sqlite:'.length).replace(/^\/\/(?=\.|\/)/, '');
    if (filename === '') throw new ConfigurationError('DATABASE_URL', `"${value}" names no file; expected ${FORMS}`);
    return { kind: 'sqlite', filename };
  }
  if (value.startsWith('pglite:')) {
    const folder = value.slice('pglite:'.length);
    if (folder === '') throw new ConfigurationError('DATABASE_URL', `"${value}" names no folder; expected ${FORMS}`);
    return { kind: 'pglite', dataDir: folder === 'memory:' ? 'memory://' : folder };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    // A libpq multi-host URL (`a:5432,b:5432`) is not a WHATWG URL; postgresStorage splits and checks it (failover, B38).
    const multiHost = /^postgres(ql)?:\/\/([^@/?#]*@)?[^/?#,]+(,[^/?#,]+)+([/?#]|$)/.test(value);
    if (!multiHost && (!URL.canParse(value) || new URL(value).hostname === '')) {
      throw new ConfigurationError('DATABASE_URL', `"${masked(value)}" is not a valid PostgreSQL URL; expected ${FORMS}`);
    }
    return { kind: 'postgres', connectionString: value };
  }
  throw new ConfigurationError('DATABASE_URL', `unsupported "${masked(value)}"; expected ${FORMS}`);
}

/**
 * Builds the storage driver a URL names, not yet migrated (the governed API migrates its
 * entities; `cellgate migrate` does it ahead of time). A bad URL is a {@link ConfigurationError};
 * a driver package the app has not installed (`better-sqlite3`, `pg`, `@electric-sql/pglite`) is one too, on first use.
 *
 * @example
 * import { createGovernedApi } from 'cellgate';
 * import { storageFromUrl } from 'cellgate/node';
 *
 * const storage = await storageFromUrl(process.env.DATABASE_URL ?? 'sqlite:./data/app.db', { postgres: { max: 20 } });
 */
export async function storageFromUrl(url: string | undefined, options: StorageFromUrlOptions = {}): Promise<StorageDriver> {
  const parsed = parseStorageUrl(url);
  switch (parsed.kind) {
    case 'memory':
      return memoryStorage();
    case 'sqlite': {
      const { sqliteStorage } = await import('cellgate/storage/sqlite');
      return sqliteStorage({ ...options.sqlite, filename: parsed.filename });
    }
    case 'postgres': {
      const { postgresStorage } = await import('cellgate/storage/postgres');
      return postgresStorage({ ...options.postgres, connectionString: parsed.connectionString });
    }
    case 'pglite': {
      const { pgliteStorage } = await import('cellgate/storage/pglite');
      return pgliteStorage({ ...options.pglite, dataDir: parsed.dataDir });
    }
  }
}
