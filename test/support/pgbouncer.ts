/**
 * A throwaway PgBouncer in transaction mode (`pool_mode = transaction`, defaults otherwise) in
 * front of a test PostgreSQL, on 127.0.0.1 with a free port; started from the Debian binary
 * (`/usr/sbin/pgbouncer`), as the `postgres` user when we are root (PgBouncer refuses root).
 * Without the binary, the caller gets a `skip` reason to print.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './postgres.ts';

/** Where Debian installs PgBouncer. */
export const PGBOUNCER_BINARY = '/usr/sbin/pgbouncer';

/** A running PgBouncer: the URL of a database through it, and how to stop it. */
export interface TestPgBouncer {
  /** `serverUrl` with host and port replaced by PgBouncer's. */
  url: string;
  stop(): Promise<void>;
}

/** The reason PgBouncer tests cannot run here, if any. */
export function pgbouncerSkip(): string | undefined {
  return existsSync(PGBOUNCER_BINARY) ? undefined : `no PgBouncer binary at ${PGBOUNCER_BINARY} (apt-get install pgbouncer)`;
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts PgBouncer in transaction mode in front of the server of `serverUrl` (trust
 * authentication on loopback, as the test clusters use) and resolves once it accepts connections.
 */
export async function startPgBouncer(serverUrl: string): Promise<TestPgBouncer> {
  const target = new URL(serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-pgbouncer-'));
  const port = await freePort();
  const user = decodeURIComponent(target.username || 'postgres');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const root = userInfo().uid === 0;
  const ids = root
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) }
    : {};
  if (root) chownSync(dir, ids.uid!, ids.gid!);
  for (const file of ['users.txt', 'pgbouncer.ini']) if (root) chownSync(join(dir, file), ids.uid!, ids.gid!);
  const child: ChildProcess = spawn(PGBOUNCER_BINARY, [join(dir, 'pgbouncer.ini')], { ...ids, stdio: 'ignore' });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  for (let i = 0; i < 200 && child.exitCode === null && !(await accepting(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}; see ${join(dir, 'pgbouncer.log')}`);
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    async stop() {
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null) {
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
