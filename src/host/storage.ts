/**
 * `DATABASE_URL` → storage driver for the reference host and `cellgate migrate`:
 * `memory:`, `sqlite:<file path>` (`sqlite::memory:`), `postgres://…` / `postgresql://…`.
 * The SQL drivers come from their own subpaths, loaded only when the URL asks for them.
 */
import { ConfigurationError, memoryStorage, type StorageDriver } from 'cellgate';

/** The default: a SQLite file next to where the host runs. */
export const DEFAULT_DATABASE_URL = 'sqlite:./.cellgate/dev.db';

/** An opened driver and how to name it in the banner (passwords masked). */
export interface OpenedStorage {
  storage: StorageDriver;
  /** E.g. `sqlite ./.cellgate/dev.db` or `postgres postgres://app:***@db:5432/app`. */
  label: string;
}

const FORMS = 'memory:, sqlite:<file path>, sqlite::memory: or postgres://user:password@host:port/database';

function maskPassword(url: URL): string {
  const masked = new URL(url.toString());
  if (masked.password) masked.password = '***';
  return masked.toString();
}

/**
 * Opens the driver for `url` (not migrated: the governed API migrates its entities). A bad URL
 * throws a {@link ConfigurationError} whose message is one printable line.
 *
 * @example
 * const { storage, label } = await createStorageFromUrl(process.env.DATABASE_URL);
 */
export async function createStorageFromUrl(url: string | undefined = DEFAULT_DATABASE_URL): Promise<OpenedStorage> {
  const value = url.trim() === '' ? DEFAULT_DATABASE_URL : url.trim();
  if (value === 'memory:') return { storage: memoryStorage(), label: 'memory: (in-process; data is lost on exit)' };
  if (value.startsWith('sqlite:')) {
    const filename = value.slice('sqlite:'.length).replace(/^\/\/(?=\.|\/)/, '');
    if (filename === '') throw new ConfigurationError('DATABASE_URL', `"${value}" names no file; expected ${FORMS}`);
    const { sqliteStorage } = await import('cellgate/storage/sqlite');
    return { storage: sqliteStorage({ filename }), label: `sqlite ${filename}` };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    if (!URL.canParse(value) || new URL(value).hostname === '') {
      throw new ConfigurationError('DATABASE_URL', `"${value.replace(/:[^:@/]*@/, ':***@')}" is not a valid PostgreSQL URL; expected ${FORMS}`);
    }
    const { postgresStorage } = await import('cellgate/storage/postgres');
    return { storage: postgresStorage({ connectionString: value }), label: `postgres ${maskPassword(new URL(value))}` };
  }
  throw new ConfigurationError('DATABASE_URL', `unsupported "${value.replace(/:[^:@/]*@/, ':***@')}"; expected ${FORMS}`);
}
