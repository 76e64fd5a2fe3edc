/**
 * `DATABASE_URL` → storage driver for the reference host and the `cellgate` command, on the public
 * `storageFromUrl` of `cellgate/node` (apps call that one: it is the stable form), plus the host's
 * default URL and the label its banner prints.
 */
import type { StorageDriver } from 'cellgate';
import { ConfigurationError } from 'cellgate';
import { parseStorageUrl, storageFromUrl } from 'cellgate/node';

/** The default: a SQLite file next to where the host runs. */
export const DEFAULT_DATABASE_URL = 'sqlite:./.cellgate/dev.db';

/** An opened driver and how to name it in the banner (passwords masked). */
export interface OpenedStorage {
  storage: StorageDriver;
  /** E.g. `sqlite ./.cellgate/dev.db` or `postgres postgres://app:***@db:5432/app`. */
  label: string;
}

function maskPassword(connectionString: string): string {
  // A multi-host URL (failover) is not a WHATWG URL: mask the password part by its shape.
  if (!URL.canParse(connectionString)) return connectionString.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
  const masked = new URL(connectionString);
  if (masked.password) masked.password = '***';
  return masked.toString();
}

/**
 * Opens the driver for `url` (not migrated: the governed API migrates its entities), defaulting to
 * {@link DEFAULT_DATABASE_URL}. A bad URL throws a `ConfigurationError` whose message is one
 * printable line. Apps use `storageFromUrl` from `cellgate/node`; this name stays as the host's
 * form with a banner label.
 *
 * @example
 * const { storage, label } = await createStorageFromUrl(process.env.DATABASE_URL);
 */
export async function createStorageFromUrl(url: string | undefined = DEFAULT_DATABASE_URL, readUrls?: string): Promise<OpenedStorage> {
  const value = url.trim() === '' ? DEFAULT_DATABASE_URL : url;
  const parsed = parseStorageUrl(value);
  const replicas = readReplicaUrls(readUrls);
  if (replicas.length > 0 && parsed.kind !== 'postgres') {
    throw new ConfigurationError(
      'DATABASE_READ_URLS',
      `needs a postgres:// DATABASE_URL (read replicas are PostgreSQL streaming replicas), not ${parsed.kind}`,
    );
  }
  const storage = await storageFromUrl(value, replicas.length > 0 ? { postgres: { replicas } } : {});
  const label =
    parsed.kind === 'memory'
      ? 'memory: (in-process; data is lost on exit)'
      : parsed.kind === 'sqlite'
        ? `sqlite ${parsed.filename}`
        : parsed.kind === 'pglite'
          ? `pglite ${parsed.dataDir}`
          : `postgres ${maskPassword(parsed.connectionString)}`;
  return { storage, label: replicas.length > 0 ? `${label} + ${replicas.length} read replica${replicas.length === 1 ? '' : 's'}` : label };
}

/**
 * `DATABASE_READ_URLS`: comma-separated postgres:// URLs of streaming replicas (docs/scaling-out.md);
 * empty or unset means none. Each must be a postgres URL (checked by `postgresStorage`).
 */
export function readReplicaUrls(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
