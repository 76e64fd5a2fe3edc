/**
 * Long-poll waiters of the change feed (`GET /v1/events?wait=…`): the caps per actor and per
 * process answer 429 with `Retry-After` (over HTTP on 127.0.0.1), a commit wakes only its own
 * tenant's waiters, idle waiters make no feed read of their own (one lookup of heads per poll for
 * every waiting tenant), and waiters get the events another process commits (SQLite file and
 * PostgreSQL, two drivers on one database), one shared read for identical waiting queries.
 *
 * No assertion here is about time: the tests wait for states (a number of waiters, a number of
 * polls), never for a duration.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createGovernedApi, createGovernedService, memoryStorage, type Actor, type StorageDriver, type StoredEvent } from 'cellgate';
import { readFeed } from '../../src/governed/events/feed-route.ts';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { waitingFeedRequests } from '../../src/governed/events/wake.ts';
import { expectError, ids, mint, SECRET, send, serve } from '../governed/support.ts';
import { driverSkip } from '../storage/drivers.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { ORDER_DOCUMENT } from './support.ts';

/** Resolves once `condition` holds, looking again after each turn of the event loop (no clock involved). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const reader = (sub: string, tenant: string = ids.tenant) => mint({ sub, tenant, roles: ['admin'], permissions: ['audit:read'] });

const writer = (tenantId: string) => ({
  actor: { id: 'writer', type: 'user' as const, tenantId, roles: ['admin'], workspaces: {}, permissions: [] } satisfies Actor,
  scope: { workspaceId: ids.ws },
});

describe('feed waiter caps over HTTP', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the per-actor and the per-process cap, and frees a slot when a client goes away', async () => {
    const handler = createGovernedApi({
      storage: memoryStorage(),
      auth: { secret: SECRET },
      resources: [ORDER_DOCUMENT],
      eventFeed: { maxWaitersPerActor: 2, maxWaiters: 3 },
    });
    await handler.migrate();
    const server = await serve(handler);
    const clients: AbortController[] = [];
    const open = async (token: string) => {
      const client = new AbortController();
      clients.push(client);
      void fetch(`${server.url}/v1/events?wait=30`, { headers: { authorization: `Bearer ${token}` }, signal: client.signal }).catch(() => undefined);
    };
    try {
      const [first, second, third] = (await Promise.all([1, 2, 3].map(() => reader(crypto.randomUUID())))) as [string, string, string];
      await open(first);
      await open(first);
      await until(() => waitingFeedRequests() === 2);
      const overActor = await send(server.url, 'GET', '/v1/events?wait=30', { token: first });
      expectError(overActor, 429, 'RATE_LIMITED');
      expect(overActor.headers.get('retry-after')).toBe('5');
      // Without wait, nothing waits: the same actor still reads.
      expect((await send(server.url, 'GET', '/v1/events', { token: first })).status).toBe(200);
      await open(second);
      await until(() => waitingFeedRequests() === 3);
      const overProcess = await send(server.url, 'GET', '/v1/events?wait=30', { token: third });
      expectError(overProcess, 429, 'RATE_LIMITED');
      expect(overProcess.headers.get('retry-after')).toBe('5');
      clients.shift()!.abort();
      await until(() => waitingFeedRequests() === 2);
      await open(third);
      await until(() => waitingFeedRequests() === 3);
    } finally {
      for (const client of clients) client.abort();
      await until(() => waitingFeedRequests() === 0);
      await server.close();
    }
  });

  it('refuses waiter caps that are not positive integers when the API is built', () => {
    for (const eventFeed of [{ maxWaiters: 0 }, { maxWaitersPerActor: 1.5 }, { maxWaiters: Number.NaN }]) {
      expect(() => createGovernedApi({ storage: memoryStorage(), auth: { secret: SECRET }, resources: [ORDER_DOCUMENT], eventFeed })).toThrow(/eventFeed\./);
    }
  });
});

describe('feed waiters in one process', () => {
  it('a commit wakes its own tenant’s waiters only: another tenant’s waiter makes no read', async () => {
    const storage = memoryStorage();
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    const [mine, other] = [crypto.randomUUID(), crypto.randomUUID()];
    const reads = vi.spyOn(storage.events, 'listEvents');
    const heads = vi.spyOn(storage.events, 'latestCursors');
    const quiet = new AbortController();
    const woken = readFeed(storage, { tenantId: mine, limit: 10 }, 30_000);
    const idle = readFeed(storage, { tenantId: other, limit: 10 }, 30_000, quiet.signal);
    await until(() => waitingFeedRequests() === 2);
    reads.mockClear();
    await service.create(writer(mine), { title: 'now', amount: 1 });
    expect((await woken).map((event) => event.tenantId)).toEqual([mine]);
    // Two more polls of the heads: a wake of the other tenant would have made its read by then.
    const polled = heads.mock.calls.length;
    await until(() => heads.mock.calls.length >= polled + 2);
    expect(reads.mock.calls.map(([query]) => query.tenantId)).toEqual([mine]);
    quiet.abort();
    expect(await idle).toEqual([]);
  });

  it('idle waiters make no feed read: one lookup of heads per poll serves every waiting tenant', async () => {
    const storage = memoryStorage();
    const tenants = Array.from({ length: 40 }, () => crypto.randomUUID());
    const stop = new AbortController();
    const waits = tenants.flatMap((tenantId) => [1, 2].map(() => readFeed(storage, { tenantId, limit: 10 }, 30_000, stop.signal)));
    await until(() => waitingFeedRequests() === 80);
    const reads = vi.spyOn(storage.events, 'listEvents');
    const heads = vi.spyOn(storage.events, 'latestCursors');
    await until(() => heads.mock.calls.length >= 3);
    expect(reads).not.toHaveBeenCalled();
    for (const [asked] of heads.mock.calls) expect([...asked].sort()).toEqual([...tenants].sort());
    stop.abort();
    expect(await Promise.all(waits)).toEqual(waits.map(() => []));
  });
});

/** Waiters on one driver, a commit through another driver on the same database: the poll finds it, with one read per distinct query. */
async function crossProcess(waiting: StorageDriver, committing: StorageDriver): Promise<void> {
  const service = createGovernedService({ entity: ORDER_DOCUMENT, storage: committing });
  await committing.migrate([service.model]);
  await waiting.migrate([service.model]);
  const tenantId = crypto.randomUUID();
  const waits = Array.from({ length: 20 }, () => readFeed(waiting, { tenantId, limit: 10 }, 30_000));
  await until(() => waitingFeedRequests() === 20);
  const reads = vi.spyOn(waiting.events, 'listEvents');
  await service.create(writer(tenantId), { title: 'elsewhere', amount: 1 });
  const pages: StoredEvent[][] = await Promise.all(waits);
  expect(pages.map((page) => page.map((event) => event.type))).toEqual(pages.map(() => ['entity.created']));
  expect(reads).toHaveBeenCalledTimes(1);
}

describe('feed waiters across processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-waiters-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(Boolean(driverSkip('sqlite')))('SQLite: a waiter gets the event another driver on the same file commits', async () => {
    const filename = join(dir, 'feed.db');
    const [one, two] = [sqliteStorage({ filename }), sqliteStorage({ filename })];
    try {
      await crossProcess(one, two);
    } finally {
      await one.close();
      await two.close();
    }
  });

  const filtered = driverSkip('postgres');
  it.skipIf(Boolean(filtered))(
    `PostgreSQL: a waiter gets the event another driver on the same database commits${filtered ? ` (skipped: ${filtered})` : ''}`,
    async () => {
      const server = await startTestPostgres();
      if (!server.ok) throw new Error(server.skip);
      const [one, two] = [postgresStorage({ connectionString: server.db.url }), postgresStorage({ connectionString: server.db.url })];
      try {
        await crossProcess(one, two);
      } finally {
        await one.close();
        await two.close();
        await server.db.stop();
      }
    },
  );
});
