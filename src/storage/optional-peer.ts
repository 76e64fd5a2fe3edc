/**
 * Loading the optional peer packages of the storage drivers (`better-sqlite3`, `pg`). cellgate
 * does not depend on them (an app installs the one it uses), so the drivers import them on first
 * use. A package that is not installed becomes a {@link ConfigurationError} naming the install
 * command: before, SQLite's first migrate threw a raw "Cannot find package" and PostgreSQL's
 * reported the missing package as a database outage (503 SERVICE_UNAVAILABLE).
 */
import { ConfigurationError } from '../errors.ts';

/** The optional peer packages a storage driver loads. */
export type OptionalPeer = 'better-sqlite3' | 'pg' | '@electric-sql/pglite';

/** Whether `error` says that package `name` itself (not something it imports) cannot be found. */
function isMissing(error: unknown, name: OptionalPeer): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return error instanceof Error && (error.message.includes(`'${name}'`) || error.message.includes(`"${name}"`));
}

/**
 * Runs `load` (a literal `import('<name>')`, kept at the call site so bundlers see it) and turns a
 * missing package into a {@link ConfigurationError} whose path is the package name; any other
 * failure (a native build that does not load, say) is rethrown unchanged.
 */
export async function loadOptionalPeer<T>(name: OptionalPeer, driver: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new ConfigurationError(
      name,
      `is not installed, and ${driver} needs it: run \`npm install ${name}\` in the app (an optional peer dependency of cellgate, installed by the app that uses it)`,
    );
  }
}
