/**
 * The change feed over HTTP (`GET /v1/events` of createGovernedApi): permission and tenant from the
 * token, workspace reach like the audit routes, validation, resumption, long-poll; and, on
 * PostgreSQL, a follower reading the feed while concurrent writers commit never skips an event
 * (the commit-order guarantee).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createGovernedApi, createGovernedService, memoryStorage, type Actor, type StoredEvent } from 'cellgate';
import { readFeed } from '../../src/governed/events/feed-route.ts';
import { postgresStorage } from 'cellgate/storage/postgres';
import { cast, expectError, ids, mint, send, SECRET } from '../governed/support.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { feedPage } from '../../src/governed/events/feed-route.ts';
import { driverSkip } from '../storage/drivers.ts';
import { ORDER_DOCUMENT } from './support.ts';

async function api() {
  const storage = memoryStorage();
  const handler = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
  await handler.migrate();
  return handler;
}

const orders = (workspaceId: string) => `/v1/workspaces/${workspaceId}/orders`;

describe('GET /v1/events', () => {
  it('serves the tenant’s events in commit order, resumable from any cursor, redacted like the audit', async () => {
    const handler = await api();
    const tokens = await cast();
    for (let index = 0; index < 5; index += 1) {
      const answer = await send(handler, 'POST', orders(ids.ws), {
        token: tokens.admin,
        body: { title: `o${index}`, amount: index, cardToken: 'tok_CARD_secret' },
      });
      expect(answer.status).toBe(201);
    }
    await send(handler, 'POST', orders(ids.ws), { token: tokens.otherTenant, body: { title: 'x', amount: 1 } });
    const all = await send(handler, 'GET', '/v1/events', { token: tokens.admin });
    expect(all.status).toBe(200);
    const events = all.body.data as StoredEvent[];
    expect(events.map((event) => event.type)).toEqual(Array(5).fill('entity.created'));
    expect(events.every((event) => event.tenantId === ids.tenant && event.resourceType === 'shop.Order@v1')).toBe(true);
    expect(all.text).not.toContain('tok_CARD_secret');
    expect(all.body.meta).toEqual({ limit: 100, nextCursor: events[4]!.cursor });
    for (let index = 0; index < events.length; index += 1) {
      const rest = await send(handler, 'GET', `/v1/events?after=${events[index]!.cursor}&limit=2`, { token: tokens.admin });
      expect(rest.body.data.map((event: StoredEvent) => event.id)).toEqual(events.slice(index + 1, index + 3).map((event) => event.id));
    }
    const end = await send(handler, 'GET', `/v1/events?after=${events[4]!.cursor}`, { token: tokens.admin });
    expect(end.body).toEqual({ data: [], meta: { limit: 100, nextCursor: events[4]!.cursor } });
    const filtered = await send(handler, 'GET', '/v1/events?resourceType=x.Other@v1', { token: tokens.admin });
    expect(filtered.body.data).toEqual([]);
  });

  it('ends a page before 8 MiB of events and resumes after the last one served, so large changes never make a giant answer', async () => {
    const handler = await api();
    const tokens = await cast();
    // Each create carries a 950,000-character title, so each event's change is about that size.
    for (let index = 0; index < 10; index += 1) {
      const answer = await send(handler, 'POST', orders(ids.ws), { token: tokens.admin, body: { title: String(index).repeat(950_000), amount: index } });
      expect(answer.status).toBe(201);
    }
    const first = await send(handler, 'GET', '/v1/events', { token: tokens.admin });
    expect(first.status).toBe(200);
    expect(first.text.length).toBeLessThanOrEqual(8 * 1024 * 1024 + 1024);
    const served = first.body.data as StoredEvent[];
    expect(served).toHaveLength(8);
    expect(first.body.meta).toEqual({ limit: 100, nextCursor: served[7]!.cursor });
    const rest = await send(handler, 'GET', `/v1/events?after=${served[7]!.cursor}`, { token: tokens.admin });
    const amounts = [...served, ...rest.body.data].map(
      (event: StoredEvent) => (event.change.diff as Array<{ path: string; value: unknown }>).find((op) => op.path === '/amount')!.value,
    );
    expect(amounts).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('serves one event alone when it is larger than the page budget, and nothing is skipped', () => {
    const event = (id: string, size: number) => ({ id, cursor: `c-${id}`, pad: 'x'.repeat(size) }) as unknown as StoredEvent;
    const page = (events: StoredEvent[], budget: number) => JSON.parse(feedPage(events, { limit: 10 }, budget)) as { data: StoredEvent[]; meta: unknown };
    const big = page([event('a', 500), event('b', 10)], 100);
    expect(big.data.map((e) => e.id)).toEqual(['a']);
    expect(big.meta).toEqual({ limit: 10, nextCursor: 'c-a' });
    const fits = page([event('a', 10), event('b', 10), event('c', 10)], 10_000);
    expect(fits.data.map((e) => e.id)).toEqual(['a', 'b', 'c']);
    expect(JSON.parse(feedPage([], { limit: 10, after: 'c-z' }))).toEqual({ data: [], meta: { limit: 10, nextCursor: 'c-z' } });
    // The text is exactly what serialising the page object gives.
    const events = [event('a', 10), event('b', 20)];
    expect(feedPage(events, { limit: 3 })).toBe(JSON.stringify({ data: events, meta: { limit: 3, nextCursor: 'c-b' } }));
  });

  it('needs audit:read; without a tenant-wide role it reads only the workspaces the caller holds a role in (the audit reach)', async () => {
    const handler = await api();
    const tokens = await cast();
    await send(handler, 'POST', orders(ids.ws), { token: tokens.admin, body: { title: 'a', amount: 1 } });
    await send(handler, 'POST', orders(ids.otherWs), { token: tokens.admin, body: { title: 'b', amount: 1 } });
    expectError(await send(handler, 'GET', '/v1/events'), 401, 'UNAUTHENTICATED');
    expectError(await send(handler, 'GET', '/v1/events', { token: tokens.adminNoPerms }), 403, 'FORBIDDEN');
    const reach = await send(handler, 'GET', '/v1/events', { token: tokens.editor });
    expect(reach.status).toBe(200);
    expect(reach.body.data.map((event: StoredEvent) => event.workspaceId)).toEqual([ids.ws]);
    expectError(await send(handler, 'GET', `/v1/events?workspaceId=${ids.otherWs}`, { token: tokens.editor }), 403, 'FORBIDDEN');
    const mine = await send(handler, 'GET', `/v1/events?workspaceId=${ids.ws}`, { token: tokens.editor });
    expect(mine.body.data.map((event: StoredEvent) => event.workspaceId)).toEqual([ids.ws]);
    expect((await send(handler, 'GET', '/v1/events', { token: tokens.otherTenant })).body.data).toEqual([]);
  });

  it('answers 400 to a malformed cursor or parameter and 405 to other methods', async () => {
    const handler = await api();
    const tokens = await cast();
    for (const query of [
      'after=nope',
      `after=${'A'.repeat(5000)}`,
      'limit=0',
      'limit=501',
      'wait=31',
      'wait=-1',
      'resourceType=bad',
      'workspaceId=1',
      'cursor=x',
      'limit=1&limit=2',
    ]) {
      expectError(await send(handler, 'GET', `/v1/events?${query}`, { token: tokens.admin }), 400, 'VALIDATION_ERROR');
    }
    expect((await send(handler, 'POST', '/v1/events', { token: tokens.admin, body: {} })).status).toBe(405);
  });

  it('waits for the next event with wait=<seconds> and answers as soon as one commits', async () => {
    const handler = await api();
    const tokens = await cast();
    const started = Date.now();
    const waiting = send(handler, 'GET', '/v1/events?wait=10', { token: tokens.admin });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await send(handler, 'POST', orders(ids.ws), { token: tokens.admin, body: { title: 'late', amount: 1 } });
    const answer = await waiting;
    expect(answer.body.data.map((event: StoredEvent) => event.type)).toEqual(['entity.created']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(5000);
    // A write of this process wakes the wait at once, without waiting for the next periodic look.
    const storage = memoryStorage();
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    const writer = {
      actor: { id: 'w', type: 'user' as const, tenantId: ids.tenant, roles: ['admin'], workspaces: {}, permissions: [] },
      scope: { workspaceId: ids.ws },
    };
    const woken = readFeed(storage, { tenantId: ids.tenant, limit: 10 }, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const committedAt = Date.now();
    await service.create(writer, { title: 'now', amount: 1 });
    expect((await woken).map((event) => event.type)).toEqual(['entity.created']);
    expect(Date.now() - committedAt).toBeLessThan(150); // the next periodic look would come ~230 ms after the commit
    const empty = Date.now();
    const none = await send(handler, 'GET', `/v1/events?wait=1&after=${answer.body.meta.nextCursor}`, { token: tokens.admin });
    expect(none.body.data).toEqual([]);
    expect(Date.now() - empty).toBeGreaterThanOrEqual(900);
  });

  it('stops waiting as soon as the client goes away (request signal aborted)', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = readFeed(memoryStorage(), { tenantId: ids.tenant, limit: 10 }, 10_000, controller.signal);
    setTimeout(() => controller.abort(), 100);
    expect(await waiting).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('is not served when eventRoutes is false', async () => {
    const handler = createGovernedApi({ storage: memoryStorage(), auth: { secret: SECRET }, resources: [ORDER_DOCUMENT], eventRoutes: false });
    expect(
      await handler.match(
        new Request('http://test.local/v1/events', { headers: { authorization: `Bearer ${await mint({ roles: ['admin'], permissions: ['audit:read'] })}` } }),
      ),
    ).toBeUndefined();
  });
});

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const skip = server.ok ? undefined : server.skip;
afterAll(async () => {
  if (server.ok) await server.db.stop();
});

describe.skipIf(Boolean(skip))(`feed on PostgreSQL under concurrent writers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('a follower reading while 16 writers commit sees every event once, in the order of the final feed', async () => {
    const storage = postgresStorage({ connectionString: server.ok ? server.db.url : '', max: 12 });
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    const workspaceId = crypto.randomUUID();
    const actor: Actor = {
      id: crypto.randomUUID(),
      type: 'service',
      tenantId: crypto.randomUUID(),
      roles: ['admin'],
      workspaces: { [workspaceId]: ['admin'] },
      permissions: [],
    };
    let writing = true;
    const followed: StoredEvent[] = [];
    const follower = (async () => {
      let after: string | undefined;
      for (let idle = 0; writing || idle < 2; ) {
        const page = await storage.events.listEvents({ tenantId: actor.tenantId, limit: 7, ...(after === undefined ? {} : { after }) });
        followed.push(...page);
        if (page.length > 0) after = page[page.length - 1]!.cursor;
        if (!writing && page.length === 0) idle += 1;
      }
    })();
    await Promise.all(
      Array.from({ length: 16 }, async (_, writer) => {
        for (let index = 0; index < 25; index += 1) await service.create({ actor, scope: { workspaceId } }, { title: `w${writer}-${index}`, amount: index });
      }),
    );
    writing = false;
    await follower;
    const final: StoredEvent[] = [];
    for (let after: string | undefined; ; ) {
      const page = await storage.events.listEvents({ tenantId: actor.tenantId, limit: 100, ...(after === undefined ? {} : { after }) });
      final.push(...page);
      if (page.length < 100) break;
      after = page[page.length - 1]!.cursor;
    }
    expect(final).toHaveLength(400);
    expect(followed.map((event) => event.id)).toEqual(final.map((event) => event.id));
    await storage.close();
  });
});
