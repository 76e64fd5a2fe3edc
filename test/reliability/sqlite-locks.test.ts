/**
 * Another process holding a SQLite file's write lock never freezes a host: better-sqlite3 waits
 * synchronously, so the driver only lets it wait a few milliseconds per try and retries on
 * timers. Three hosts share one file; while a fourth process holds the write lock, `/health` and
 * reads answer at normal speed on every host, and a write waits (without blocking anything)
 * until the lock is free, then succeeds; a write that cannot get the lock in time answers 503.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { driverSkip } from '../storage/drivers.ts';
import { startHostProcess, type HostProcess } from '../storage/fixtures/host-process.ts';
import { adminToken, call, createCustomer, customers, SECRET } from './support.ts';

const skip = driverSkip('sqlite');
const dir = mkdtempSync(join(tmpdir(), 'cellgate-sqlite-locks-'));
const filename = join(dir, 'shared.db');
const holderScript = fileURLToPath(new URL('../storage/fixtures/sqlite-lock-holder.ts', import.meta.url));

/** Starts the lock holder and resolves once it holds the lock; `done` resolves when it let go. */
function holdWriteLock(holdMs: number): Promise<{ done: Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', holderScript, filename, String(holdMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve({ done });
    });
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code} before locking`)));
  });
}

describe('sqliteStorage busyTimeoutMs', () => {
  it('refuses a negative or non-numeric busy timeout', () => {
    expect(() => sqliteStorage({ filename: ':memory:', busyTimeoutMs: -1 })).toThrow(ConfigurationError);
    expect(() => sqliteStorage({ filename: ':memory:', busyTimeoutMs: Number.NaN })).toThrow(ConfigurationError);
  });
});

describe('statements outside a transaction (SQLite)', () => {
  it('wait on timers for a write lock another connection holds, then succeed', async () => {
    const file = join(dir, 'direct.db');
    const driver = sqliteStorage({ filename: file });
    await driver.migrate([]);
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    setTimeout(() => holder.exec('COMMIT'), 300);
    const record = { tenantId: 't', actorId: 'a', key: 'k', requestHash: 'h', status: 201, body: '{}', createdAt: new Date().toISOString() };
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 10);
    try {
      // An autocommit write on the driver itself: it needs the write lock the holder has.
      expect(await driver.putIdempotency(record)).toBe(true);
      // The event loop kept running while it waited.
      expect(ticks).toBeGreaterThan(3);
    } finally {
      clearInterval(ticker);
      holder.close();
      await driver.close();
    }
  });
});

describe.skipIf(Boolean(skip))(`hosts on one SQLite file while another process holds its write lock${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let hosts: HostProcess[] = [];
  let token = '';
  let ids: string[] = [];

  beforeAll(async () => {
    // Rate limiting on: its count is a write to the shared file, which must not stall reads either.
    const env = { DATABASE_URL: `sqlite:${filename}`, CELLGATE_JWT_SECRET: SECRET, CELLGATE_RATE_LIMIT: '100000' };
    hosts = [await startHostProcess(env)];
    hosts.push(...(await Promise.all([startHostProcess(env), startHostProcess(env)])));
    token = await adminToken();
    ids = await Promise.all(hosts.map((host, index) => createCustomer(host, token, `Host ${index}`)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.stop()));
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('answers /health and reads at normal speed on every host; a waiting write succeeds once the lock is free', async () => {
    const { done } = await holdWriteLock(3000);
    const started = performance.now();
    const write = call(hosts[0]!, token, 'PATCH', `${customers}/${ids[0]}`, { expectedVersion: 1, name: 'after the lock' }).then((answer) => ({
      ...answer,
      ms: performance.now() - started,
    }));
    const timings: number[] = [];
    // Sequential probes on every host for two seconds of the three the lock is held.
    await Promise.all(
      hosts.map(async (host, index) => {
        while (performance.now() - started < 2000) {
          const probe = performance.now();
          const health = await fetch(`${host.url}/health`);
          await health.arrayBuffer();
          const read = await call(host, token, 'GET', `${customers}/${ids[index]}`);
          expect([health.status, read.status]).toEqual([200, 200]);
          timings.push(performance.now() - probe);
        }
      }),
    );
    const slowest = Math.max(...timings);
    // Blocking waits would hold each probe for the whole busy timeout (5 s).
    expect(slowest, `slowest /health + read: ${slowest.toFixed(0)} ms over ${timings.length} probes`).toBeLessThan(500);
    expect(timings.length).toBeGreaterThan(30);
    const written = await write;
    await done;
    expect(written.status, JSON.stringify(written.json)).toBe(200);
    expect(written.ms).toBeGreaterThan(2500);
  }, 60_000);

  it('answers a write that cannot get the lock within the busy timeout with 503 + Retry-After', async () => {
    const { done } = await holdWriteLock(6500);
    const written = await call(hosts[1]!, token, 'PATCH', `${customers}/${ids[1]}`, { expectedVersion: 1, name: 'too late' });
    expect(written.status, JSON.stringify(written.json)).toBe(503);
    expect(written.retryAfter).not.toBeNull();
    await done;
  }, 60_000);
});
