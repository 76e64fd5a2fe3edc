/**
 * Start-up failures of the storage named by `DATABASE_URL`, said so a newcomer can act on them:
 * a missing driver package says how to install it or what to run on instead; an unreachable
 * PostgreSQL names the host, the port and the cause.
 */
import { DEFAULT_DATABASE_URL } from '../../host/storage.ts';

/** Whether a package can be loaded from here (the app's `node_modules`, as the storage entries load it). */
async function installed(name: string): Promise<boolean> {
  try {
    await import(name);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND';
  }
}

/**
 * For a `sqlite:` URL (or none, which means the default SQLite file) or a `postgres://` one:
 * `undefined` when its driver package (`better-sqlite3`, `pg`) can be loaded, else a one-line hint
 * with the install command and the other ways to run.
 */
export async function missingDriver(url: string | undefined): Promise<string | undefined> {
  const value = url?.trim() || DEFAULT_DATABASE_URL;
  if (value.startsWith('sqlite:')) {
    if (await installed('better-sqlite3')) return undefined;
    return (
      `${value} needs the SQLite driver, which is not installed: run \`npm install better-sqlite3\`, ` +
      'or run without it on --database-url memory: (in-process) or postgres://user:password@host:5432/db (with `npm install pg`).'
    );
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    if (await installed('pg')) return undefined;
    return 'a PostgreSQL URL needs the pg driver, which is not installed: run `npm install pg`, or run on --database-url memory: (in-process).';
  }
  return undefined;
}
