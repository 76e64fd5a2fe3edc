/**
 * Rate limits counted in shared storage: the SQL drivers' `rateLimitStore` (one upsert per
 * request, exact within a window because the database serialises upserts of a row), and four
 * reference-host processes on one PostgreSQL holding `CELLGATE_RATE_LIMIT` for one actor
 * together, not once per process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage, type StorageDriver } from 'cellgate';
import { createRateLimiter } from '../../src/governed/rate-limit.ts';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from '../storage/drivers.ts';
import { startHostProcess, type HostProcess } from '../storage/fixtures/host-process.ts';
import { adminToken, call, customers, pause, SECRET } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-rate-limit-'));
const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const skip = server.ok ? undefined : server.skip;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('has a shared rate-limit store for shared storage only: not for memory, nor for an in-memory SQLite', async () => {
  expect(memoryStorage().rateLimitStore).toBeUndefined();
  const inMemory = sqliteStorage({ filename: ':memory:' });
  expect(inMemory.rateLimitStore).toBeUndefined();
  await inMemory.close();
});

/** Another process holding the SQLite file's write lock until it is told to let go. */
async function lockHolder(file: string): Promise<{ release(): Promise<void> }> {
  const script = `const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('BEGIN IMMEDIATE'); console.log('locked');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script, file], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return {
    release: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.stdin!.write('go\n');
      }),
  };
}

it('counts in this process while another process holds the SQLite write lock: the limit holds, requests are neither let through nor stalled', async () => {
  const file = join(dir, 'locked.db');
  const driver = sqliteStorage({ filename: file });
  await driver.migrate([]);
  const holder = await lockHolder(file);
  try {
    const limiter = createRateLimiter({ limit: 2, windowMs: 60_000 }, 'rateLimit', driver.rateLimitStore);
    const actor = { id: 'locked-out', tenantId: 't1' } as Parameters<typeof limiter>[0];
    await limiter(actor, new Request('http://x/'));
    await limiter(actor, new Request('http://x/'));
    // Before: every request passed uncounted while the lock was held.
    const refused = await limiter(actor, new Request('http://x/')).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(Number((refused as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThanOrEqual(1);
  } finally {
    await holder.release();
    await driver.close();
  }
});

/** Rows of the rate-limit table whose key starts with `prefix`, read straight from the database. */
type RowCount = (prefix: string) => Promise<number>;

const sqliteRows: RowCount = async (prefix) => {
  const db = new Database(join(dir, 'limits.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM cellgate_rate_limit WHERE rate_key LIKE ?').get(`${prefix}%`) as { n: number }).n;
  } finally {
    db.close();
  }
};

const postgresRows: RowCount = async (prefix) => {
  const db = new pg.Client({ connectionString: server.ok ? server.db.url : '' });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM cellgate_rate_limit WHERE rate_key LIKE $1', [`${prefix}%`]);
    return Number(rows[0]!.n);
  } finally {
    await db.end();
  }
};

const drivers: Array<[string, () => StorageDriver, RowCount, string | undefined]> = [
  ['SQLite file', () => sqliteStorage({ filename: join(dir, 'limits.db') }), sqliteRows, undefined],
  ['PostgreSQL', () => postgresStorage({ connectionString: server.ok ? server.db.url : '' }), postgresRows, skip],
];

describe.each(drivers)('the SQL rate-limit store (%s)', (_name, open, rowCount, skipped) => {
  if (skipped) {
    it.skip(`reason: ${skipped}`, () => undefined);
    return;
  }
  const driver = open();
  beforeAll(() => driver.migrate([]));
  afterAll(() => driver.close());

  it('counts a fixed window exactly, with the time left until the next window', async () => {
    const policy = { algorithm: 'fixed-window' as const, limit: 3, windowMs: 1000 };
    const at = 5_000_000_000_000; // the start of a window
    const verdicts = [];
    for (let i = 0; i < 5; i += 1) verdicts.push(await driver.rateLimitStore!.consume('fixed', policy, at + 100 + i));
    expect(verdicts.map((verdict) => verdict.allowed)).toEqual([true, true, true, false, false]);
    expect(verdicts[3]!.retryAfterMs).toBe(897);
    expect((await driver.rateLimitStore!.consume('fixed', policy, at + 1000)).allowed).toBe(true);
    expect((await driver.rateLimitStore!.consume('other', policy, at + 104)).allowed).toBe(true);
  });

  it('refills a token bucket evenly', async () => {
    const policy = { algorithm: 'token-bucket' as const, limit: 2, windowMs: 1000 };
    const at = 5_000_000_000_000;
    const store = driver.rateLimitStore!;
    expect((await store.consume('bucket', policy, at)).allowed).toBe(true);
    expect((await store.consume('bucket', policy, at)).allowed).toBe(true);
    const refused = await store.consume('bucket', policy, at);
    expect(refused).toEqual({ allowed: false, retryAfterMs: 500 });
    expect((await store.consume('bucket', policy, at + 500)).allowed).toBe(true);
    expect((await store.consume('bucket', policy, at + 500)).allowed).toBe(false);
  });

  it('stores a very long key as its hash, still counting it apart from others', async () => {
    const policy = { algorithm: 'fixed-window' as const, limit: 1, windowMs: 60_000 };
    const long = `t:${'a'.repeat(5000)}`;
    const at = 6_000_000_000_000;
    expect((await driver.rateLimitStore!.consume(long, policy, at)).allowed).toBe(true);
    expect((await driver.rateLimitStore!.consume(long, policy, at)).allowed).toBe(false);
    expect((await driver.rateLimitStore!.consume(`${long}b`, policy, at)).allowed).toBe(true);
  });

  it('deletes expired windows in the background (bounded batches), so old counts do not pile up', async () => {
    const policy = { algorithm: 'fixed-window' as const, limit: 1, windowMs: 1000 };
    const at = 7_000_000_000_000;
    expect((await driver.rateLimitStore!.consume('expiring', policy, at)).allowed).toBe(true);
    expect((await driver.rateLimitStore!.consume('expiring', policy, at + 1)).allowed).toBe(false);
    // Much later: this call starts a cleanup of every window that ended before it.
    await driver.rateLimitStore!.consume('later', policy, at + 3_600_000);
    await pause(200);
    // The old window's row is gone: counting in it starts again (it would still refuse otherwise).
    expect((await driver.rateLimitStore!.consume('expiring', policy, at + 2)).allowed).toBe(true);
  });

  it('keeps the table near the callers of the current window: 3,000 new callers a window for three windows leave 3,000 rows, not 7,000', async () => {
    const policy = { algorithm: 'fixed-window' as const, limit: 5, windowMs: 60_000 };
    const callers = 3000;
    const start = 8_000_000_020_000; // a window start, later than every other test's windows
    for (let window = 0; window < 3; window += 1) {
      const slot = start + window * policy.windowMs;
      // Fifty at a time, as concurrent requests would come; each caller new in its window.
      for (let from = 0; from < callers; from += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, offset) =>
            driver.rateLimitStore!.consume(`growth:${window}:${from + offset}`, policy, slot + 1 + ((from + offset) % 1000)),
          ),
        );
      }
    }
    // Before: the background cleanup (1,000 rows per 10 s per process) left 2,000 of every
    // earlier window's 3,000 rows behind, so the table grew by 2,000 rows a window.
    expect(await rowCount('growth:')).toBe(callers);
  }, 120_000);

  it('is the default store of a limiter on shared storage', async () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000 }, 'rateLimit', driver.rateLimitStore);
    const actor = { id: 'default-store-actor', tenantId: 't1' } as Parameters<typeof limiter>[0];
    await limiter(actor, new Request('http://x/'));
    // A second limiter (another process, say) on the same storage sees the first one's count.
    const other = createRateLimiter({ limit: 1, windowMs: 60_000 }, 'rateLimit', driver.rateLimitStore);
    await expect(other(actor, new Request('http://x/'))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });
});

describe.skipIf(Boolean(skip))(`four hosts on one PostgreSQL, one actor, CELLGATE_RATE_LIMIT=60${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let hosts: HostProcess[] = [];
  let token = '';

  beforeAll(async () => {
    const url = server.ok ? server.db.url : '';
    const env = { DATABASE_URL: url, CELLGATE_JWT_SECRET: SECRET, CELLGATE_RATE_LIMIT: '60' };
    hosts = await Promise.all(Array.from({ length: 4 }, () => startHostProcess(env)));
    token = await adminToken('0d0d0d0d-0000-4000-8000-0000000000aa');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.stop()));
    if (server.ok) await server.db.stop();
  }, 60_000);

  it('allows 60 requests a minute in total across the four processes, not 60 each', async () => {
    // Windows are aligned to the minute in every process: send all requests within one of them.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await pause(60_000 - intoMinute + 50);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, index) => call(hosts[index % 4]!, token, 'GET', customers)));
    const allowed = answers.filter((answer) => answer.status === 200).length;
    const limited = answers.filter((answer) => answer.status === 429);
    expect(allowed).toBe(60);
    expect(limited).toHaveLength(140);
    expect(limited.every((answer) => answer.retryAfter !== null && Number(answer.retryAfter) >= 1)).toBe(true);
    // Each process got 50 requests, so 140 refusals need at least three refusing processes: the
    // count really was shared. (Which processes refused depends on arrival order, so not all four.)
    const perHost = hosts.map((_, host) => answers.filter((answer, index) => index % 4 === host && answer.status === 429).length);
    expect(perHost.filter((count) => count > 0).length).toBeGreaterThanOrEqual(3);

    const db = new pg.Client({ connectionString: server.ok ? server.db.url : '' });
    await db.connect();
    try {
      const { rows } = await db.query<{ rows: string }>('SELECT count(*) AS rows FROM cellgate_rate_limit WHERE rate_key LIKE $1', [
        '%:0d0d0d0d-0000-4000-8000-0000000000aa',
      ]);
      // One row for the actor's current window (bounded cost: no row per request).
      expect(Number(rows[0]!.rows)).toBe(1);
    } finally {
      await db.end();
    }
  }, 120_000);
});
