/**
 * A real PostgreSQL for one test file. With `DATABASE_URL` set (CI), a fresh database is created
 * on that server and dropped afterwards; otherwise a throwaway cluster is initialised in a temp
 * folder from the installed server binaries (`/usr/lib/postgresql/<v>/bin`), started on
 * 127.0.0.1 with a free port (as the `postgres` user when running as root) and removed on stop.
 * Without either, the caller gets a `skip` reason to print.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const exec = promisify(execFile);

/** A running database: its URL and how to get rid of it. */
export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Either a database or the reason there is none. */
export type TestPostgresResult = { ok: true; db: TestPostgres } | { ok: false; skip: string };

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The newest installed PostgreSQL server binaries folder, if any. */
export function serverBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** Runs a server binary, as `postgres` when we are root (initdb refuses to run as root). */
export function runAsOwner(binary: string, args: string[]) {
  if (userInfo().uid !== 0) return exec(binary, args, { timeout: 60_000 });
  const quoted = [binary, ...args].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  return exec('su', ['postgres', '-s', '/bin/sh', '-c', quoted], { timeout: 60_000 });
}

/** A throwaway cluster of our own, which a fault test may stop and start again. */
export interface TestCluster extends TestPostgres {
  /** `pg_ctl stop -m <mode>` (the cluster stays on disk). */
  halt(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl promote`: a standby becomes a primary. */
  promote(): Promise<void>;
  /** `pg_ctl start` again after {@link halt}, on the same port. */
  resume(): Promise<void>;
}

/** A temp folder the server's owner may write (owned by `postgres` when we are root). */
async function ownedFolder(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-pg-'));
  if (userInfo().uid === 0) {
    const { stdout } = await exec('id', ['-u', 'postgres']);
    const { stdout: gid } = await exec('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  return dir;
}

/**
 * Initialises and starts a throwaway cluster from the server binaries in `bin`; `settings` adds
 * server settings (`-c name=value …`) after the defaults, e.g. `-c synchronous_commit=on`.
 */
export async function startCluster(bin: string, settings = ''): Promise<TestCluster> {
  const dir = await ownedFolder();
  const data = join(dir, 'data');
  await runAsOwner(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  return launch(bin, dir, data, settings);
}

/**
 * A streaming replica (hot standby) of the cluster at `primaryUrl`: `pg_basebackup -R` (the
 * primary's default pg_hba already trusts replication on loopback), then started on its own port.
 */
export async function startReplica(bin: string, primaryUrl: string, settings = ''): Promise<TestCluster> {
  const dir = await ownedFolder();
  const data = join(dir, 'data');
  const primary = new URL(primaryUrl);
  await runAsOwner(join(bin, 'pg_basebackup'), ['-D', data, '-R', '-X', 'stream', '-h', primary.hostname, '-p', primary.port, '-U', 'postgres', '--no-sync']);
  return launch(bin, dir, data, settings);
}

/** Starts the cluster in `data` on a free port, stopped on exit and by `stop()`. */
async function launch(bin: string, dir: string, data: string, settings: string): Promise<TestCluster> {
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200 ${settings}`;
  const start = () => runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  await start();
  // A worker that ends without running its teardown (a crash, a bench run) must not leave the
  // server behind: stop it synchronously on exit unless stop() already did.
  const stopArgs = ['-D', data, '-m', 'immediate', '-w', 'stop'];
  const stopOnExit = () => {
    try {
      if (userInfo().uid === 0)
        execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', [join(bin, 'pg_ctl'), ...stopArgs].map((part) => `'${part}'`).join(' ')], { stdio: 'ignore' });
      else execFileSync(join(bin, 'pg_ctl'), stopArgs, { stdio: 'ignore' });
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Workers may also be ended by a signal (vitest's bench runner does so without teardown).
  const stopOnSignal = (signal: NodeJS.Signals) => {
    stopOnExit();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('exit', stopOnExit);
  process.once('SIGTERM', stopOnSignal);
  process.once('SIGINT', stopOnSignal);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    halt: async (mode) => void (await runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop'])),
    resume: async () => void (await start()),
    promote: async () => void (await runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-w', '-t', '60', 'promote'])),
    async stop() {
      process.removeListener('exit', stopOnExit);
      process.removeListener('SIGTERM', stopOnSignal);
      process.removeListener('SIGINT', stopOnSignal);
      await runAsOwner(join(bin, 'pg_ctl'), stopArgs).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh database on `serverUrl` (UTF-8, C.UTF-8 when the server has it), dropped on stop. */
export async function createDatabase(serverUrl: string): Promise<TestPostgres> {
  const name = `cellgate_t_${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, async (client) => {
    try {
      await client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
    } catch {
      await client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
    }
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    stop: () => withClient(serverUrl, async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

/**
 * A database for this test file: a fresh one on `DATABASE_URL`'s server, else one on a throwaway
 * cluster, else a skip reason.
 */
export async function startTestPostgres(): Promise<TestPostgresResult> {
  const shared = process.env.DATABASE_URL;
  if (shared && /^postgres(ql)?:\/\//.test(shared)) return { ok: true, db: await createDatabase(shared) };
  const bin = serverBinaries();
  if (!bin) return { ok: false, skip: 'no DATABASE_URL and no PostgreSQL server binaries under /usr/lib/postgresql' };
  const cluster = await startCluster(bin);
  try {
    const db = await createDatabase(cluster.url);
    return {
      ok: true,
      db: {
        url: db.url,
        stop: async () => {
          await db.stop().catch(() => undefined);
          await cluster.stop();
        },
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
