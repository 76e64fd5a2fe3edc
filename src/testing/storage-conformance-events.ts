/**
 * Event cases of the storage conformance suite: the outbox through the governed core on the driver
 * under test (one event per committed mutation, none for a rolled-back one, none on tier-3, the
 * audit's redaction), the change feed (commit order, resumption from any cursor with no gap or
 * duplicate) and the webhook delivery state (fan-out once, exclusive claims, leases).
 */
import { workspaceAdminContext } from './storage-conformance-fixtures.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineEntity } from '../entity-document/index.ts';
import type { CellgateError } from '../errors.ts';
import { createGovernedService, type GovernedContext, type GovernedService } from '../governed/service.ts';
import type { DomainEvent, StorageDriver, StoredEvent } from '../storage/types.ts';

type Current = () => StorageDriver;

const SECRET = 'tok_SECRET_events';

const document = (name: string, tier: 'tier-1' | 'tier-3') =>
  defineEntity({
    $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
    name,
    key: `conformance_events.${name.toLowerCase()}`,
    version: '1.0.0',
    description: 'An entity of the event conformance cases',
    scope: 'cell-isolated',
    governance_tier: tier,
    permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
    fields: {
      title: { type: 'string' },
      amount: { type: 'number' },
      payment_token: { type: 'string', optional: true, sensitive: true, credential: true },
    },
  });

const context = (): GovernedContext =>
  workspaceAdminContext([], { requestId: `req-${crypto.randomUUID()}`, traceId: 'trace-events', ip: '127.0.0.1', userAgent: 'conformance' });

/** Every committed event of a tenant, read page by page. */
async function allEvents(driver: StorageDriver, tenantId: string, limit = 100): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (let after: string | undefined; ; ) {
    const page = await driver.events.listEvents({ tenantId, limit, ...(after === undefined ? {} : { after }) });
    out.push(...page);
    if (page.length < limit) return out;
    after = page[page.length - 1]!.cursor;
  }
}

/** Event cases, registered inside the suite's describe. */
export function eventConformanceCases(driver: Current): void {
  describe('events: outbox, feed and deliveries', () => {
    let service: GovernedService;
    let audited: GovernedService;
    const seen: DomainEvent[] = [];
    const feedAtNotice = new Map<string, StoredEvent[]>();
    beforeAll(async () => {
      service = createGovernedService({
        entity: document('Ledger', 'tier-1'),
        storage: driver(),
        redaction: { hashSecret: 'conformance' },
        onEvent: async (event) => {
          seen.push(event);
          // Called after the commit: the event is already in the feed.
          feedAtNotice.set(event.id, await driver().events.listEvents({ tenantId: event.tenantId, limit: 500 }));
        },
      });
      audited = createGovernedService({ entity: document('Note', 'tier-3'), storage: driver() });
      await driver().migrate([service.model, audited.model]);
    });

    it('writes one event per committed mutation, in commit order, matching its audit record', async () => {
      const ctx = context();
      const created = await service.create(ctx, { title: 'a', amount: 1, paymentToken: SECRET });
      const id = created.data.id;
      await service.update(ctx, id, { expectedVersion: 1, amount: 2 });
      await service.update(ctx, id, { expectedVersion: 2, amount: 2 }); // no change: no write, no event
      await service.delete(ctx, id, { expectedVersion: 2 });
      await service.rollback(ctx, id, { targetVersion: 2 });
      await service.rollback(ctx, id, { targetVersion: 1 });
      const events = await allEvents(driver(), ctx.actor.tenantId);
      expect(events.map((event) => [event.type, event.version, event.baseVersion])).toEqual([
        ['entity.created', 1, null],
        ['entity.updated', 2, 1],
        ['entity.deleted', 3, 2],
        ['entity.restored', 4, 3],
        ['entity.rollback', 5, 4],
      ]);
      const audit = (await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 100 })).records.reverse();
      expect(events.map((event) => event.auditId)).toEqual(audit.map((record) => record.id));
      events.forEach((event, index) => {
        const record = audit[index]!;
        expect(event).toMatchObject({
          resourceType: service.resourceType,
          resourceId: id,
          tenantId: ctx.actor.tenantId,
          workspaceId: ctx.scope!.workspaceId,
          cellId: ctx.scope!.cellId,
          occurredAt: record.occurredAt,
          actor: { id: ctx.actor.id, type: 'user' },
          requestId: ctx.meta!.requestId,
          traceId: 'trace-events',
          change: { kind: record.changeKind, diff: record.diff, snapshot: record.snapshot, redactionApplied: record.redactionApplied },
        });
      });
      expect(new Set(events.map((event) => event.id)).size).toBe(5);
      expect(JSON.stringify(events)).not.toContain(SECRET);
    });

    it('calls onEvent after the commit, once per event', async () => {
      const ctx = context();
      const before = seen.length;
      await service.create(ctx, { title: 'b', amount: 1 });
      await service.create(ctx, { title: 'c', amount: 1 });
      const mine = seen.slice(before).filter((event) => event.tenantId === ctx.actor.tenantId);
      expect(mine.map((event) => event.type)).toEqual(['entity.created', 'entity.created']);
      await expect.poll(() => mine.every((event) => feedAtNotice.has(event.id))).toBe(true);
      for (const event of mine) expect(feedAtNotice.get(event.id)!.map((stored) => stored.id)).toContain(event.id);
    });

    it('writes no event for a rolled-back transaction, a refused write or a tier-3 entity', async () => {
      const ctx = context();
      const created = await service.create(ctx, { title: 'a', amount: 1 });
      const stale = await service.update(ctx, created.data.id, { expectedVersion: 9, amount: 5 }).catch((error: unknown) => error);
      expect((stale as CellgateError).code).toBe('CONFLICT');
      let outside: Promise<StoredEvent[]> | undefined;
      const [first] = await allEvents(driver(), ctx.actor.tenantId);
      const rolledBack = await driver()
        .transaction(async (session) => {
          await session.appendEvent({ ...first!, id: crypto.randomUUID(), type: 'entity.updated', version: 2, baseVersion: 1 });
          // A reader outside the transaction must not see the staged event (SQLite queues it until the end).
          outside = driver().events.listEvents({ tenantId: ctx.actor.tenantId, limit: 10 });
          await new Promise((resolve) => setTimeout(resolve, 30));
          throw new Error('roll back');
        })
        .catch((error: unknown) => error);
      expect((rolledBack as Error).message).toBe('roll back');
      expect((await outside!).map((event) => event.type)).toEqual(['entity.created']);
      const note = await audited.create(ctx, { title: 'n', amount: 1 });
      await audited.update(ctx, note.data.id, { expectedVersion: 1, amount: 3 });
      const events = await allEvents(driver(), ctx.actor.tenantId);
      expect(events.map((event) => [event.type, event.resourceType])).toEqual([['entity.created', service.resourceType]]);
      expect((await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 10 })).records).toHaveLength(3);
    });

    it('commits an event appended through the driver outside a transaction on its own', async () => {
      const ctx = context();
      await service.create(ctx, { title: 'a', amount: 1 });
      const [first] = await allEvents(driver(), ctx.actor.tenantId);
      await driver().appendEvent({ ...first!, id: crypto.randomUUID(), type: 'entity.deleted', version: 2, baseVersion: 1 });
      expect((await allEvents(driver(), ctx.actor.tenantId)).map((event) => event.type)).toEqual(['entity.created', 'entity.deleted']);
    });

    it('resumes the feed from any cursor with no gap or duplicate, concurrent writers and other tenants included', async () => {
      const ctx = context();
      const other = context();
      await Promise.all(Array.from({ length: 24 }, (_, index) => service.create(index % 3 === 0 ? other : ctx, { title: `t${index}`, amount: index })));
      const events = await allEvents(driver(), ctx.actor.tenantId, 5);
      expect(events).toHaveLength(16);
      expect(new Set(events.map((event) => event.id)).size).toBe(16);
      for (let index = 0; index < events.length; index += 1) {
        const rest = await driver().events.listEvents({ tenantId: ctx.actor.tenantId, after: events[index]!.cursor, limit: 500 });
        expect(rest.map((event) => event.id)).toEqual(events.slice(index + 1).map((event) => event.id));
      }
      const narrowed = await driver().events.listEvents({
        tenantId: ctx.actor.tenantId,
        workspaceId: ctx.scope!.workspaceId!,
        resourceType: service.resourceType,
        limit: 500,
      });
      expect(narrowed.map((event) => event.id)).toEqual(events.map((event) => event.id));
      expect(await driver().events.listEvents({ tenantId: ctx.actor.tenantId, resourceType: 'x.Other@v1', limit: 10 })).toEqual([]);
      const bad = await driver()
        .events.listEvents({ tenantId: ctx.actor.tenantId, after: 'not-a-cursor', limit: 10 })
        .catch((error: unknown) => error);
      expect((bad as CellgateError).code).toBe('VALIDATION_ERROR');
    });

    it("numbers each tenant's cursors by its own events only, whatever other tenants write", async () => {
      const [first, second, alone] = [context(), context(), context()];
      await service.create(first, { title: 'a1', amount: 1 });
      for (let index = 0; index < 3; index += 1) await service.create(second, { title: `b${index}`, amount: index });
      await service.create(first, { title: 'a2', amount: 2 });
      for (let index = 0; index < 2; index += 1) await service.create(alone, { title: `c${index}`, amount: index });
      const cursors = async (ctx: GovernedContext) => (await allEvents(driver(), ctx.actor.tenantId)).map((event) => event.cursor);
      expect(await cursors(first)).toEqual(await cursors(alone));
    });

    it('refuses a cursor past 64 bits or of the former global sequence with one 400 naming after', async () => {
      const ctx = context();
      await service.create(ctx, { title: 'a', amount: 1 });
      const cursor = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      for (const after of [cursor('t9223372036854775808'), cursor('t9999999999999999999'), cursor('e1'), cursor('t0')]) {
        const refused = await driver()
          .events.listEvents({ tenantId: ctx.actor.tenantId, after, limit: 10 })
          .catch((error: unknown) => error);
        expect((refused as CellgateError).code).toBe('VALIDATION_ERROR');
        expect((refused as CellgateError).details).toMatchObject({ fields: [{ path: 'after' }] });
      }
      expect(await driver().events.listEvents({ tenantId: ctx.actor.tenantId, after: cursor('t9223372036854775807'), limit: 10 })).toEqual([]);
    });

    it('follows a cursor past the last event with only the events beyond its position', async () => {
      const ctx = context();
      await service.create(ctx, { title: 'a', amount: 1 });
      const [only] = await allEvents(driver(), ctx.actor.tenantId);
      const ahead = btoa('t3').replace(/=+$/, '');
      expect(await driver().events.listEvents({ tenantId: ctx.actor.tenantId, after: ahead, limit: 10 })).toEqual([]);
      for (let index = 0; index < 3; index += 1) await service.create(ctx, { title: `n${index}`, amount: index });
      const events = await allEvents(driver(), ctx.actor.tenantId);
      expect(events[0]!.id).toBe(only!.id);
      const beyond = await driver().events.listEvents({ tenantId: ctx.actor.tenantId, after: ahead, limit: 10 });
      expect(beyond.map((event) => event.id)).toEqual([events[3]!.id]);
    });

    it('stops a page before its events pass maxLength (at least one), and the next page goes on with no gap', async () => {
      const ctx = context();
      for (let index = 0; index < 6; index += 1) await service.create(ctx, { title: `${index}`.repeat(3000), amount: index });
      const events = await allEvents(driver(), ctx.actor.tenantId);
      const maxLength = 10_000;
      const read: StoredEvent[] = [];
      for (let after: string | undefined; read.length < events.length; ) {
        const page = await driver().events.listEvents({ tenantId: ctx.actor.tenantId, limit: 500, maxLength, ...(after === undefined ? {} : { after }) });
        expect(page.length).toBeGreaterThan(0);
        expect(page.length).toBeLessThan(events.length);
        expect(page.reduce((sum, event) => sum + JSON.stringify(event).length + 1, 0)).toBeLessThanOrEqual(maxLength);
        read.push(...page);
        after = page[page.length - 1]!.cursor;
      }
      expect(read).toEqual(events);
      const one = await driver().events.listEvents({ tenantId: ctx.actor.tenantId, limit: 500, maxLength: 1 });
      expect(one.map((event) => event.id)).toEqual([events[0]!.id]);
    });

    it('stops an audit page before its records pass maxLength (at least one), with cursors to go on from any record served', async () => {
      const ctx = context();
      for (let index = 0; index < 6; index += 1) await service.create(ctx, { title: `${index}`.repeat(3000), amount: index });
      const all = (await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 100 })).records;
      const read: string[] = [];
      for (let cursor: string | undefined; ; ) {
        const page = await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 100, maxLength: 10_000, ...(cursor === undefined ? {} : { cursor }) });
        expect(page.records.length).toBeGreaterThan(0);
        expect(page.records.length).toBeLessThan(all.length);
        expect(page.records.reduce((sum, record) => sum + JSON.stringify(record).length, 0)).toBeLessThanOrEqual(10_000);
        read.push(...page.records.map((record) => record.id));
        if (page.nextCursor === null) break;
        expect(page.cursors?.[page.records.length - 1] ?? page.nextCursor).toBe(page.nextCursor);
        cursor = page.nextCursor;
      }
      expect(read).toEqual(all.map((record) => record.id));
      const one = await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 100, maxLength: 1 });
      expect(one.records.map((record) => record.id)).toEqual([all[0]!.id]);
      expect(one.nextCursor).not.toBeNull();
    });

    it('fans each event out once per matching subscription and leases each delivery to one claimant', async () => {
      const ctx = context();
      const created = await service.create(ctx, { title: 'd', amount: 1 });
      await service.update(ctx, created.data.id, { expectedVersion: 1, amount: 2 });
      const events = await allEvents(driver(), ctx.actor.tenantId);
      const subA = `a-${crypto.randomUUID()}`;
      const subB = `b-${crypto.randomUUID()}`;
      const route = (event: StoredEvent) => (event.tenantId !== ctx.actor.tenantId ? [] : event.type === 'entity.created' ? [subA, subB] : [subA]);
      const now = new Date().toISOString();
      while ((await driver().events.fanOut(50, route, now)) > 0);
      expect(await driver().events.fanOut(50, route, now)).toBe(0);
      expect(await driver().events.deliveryCounts(subA)).toEqual({ pending: 2, delivered: 0, dead: 0 });
      expect(await driver().events.deliveryCounts(subB)).toEqual({ pending: 1, delivered: 0, dead: 0 });
      const later = new Date(Date.now() + 1000).toISOString();
      const first = await driver().events.claimDeliveries({ now: later, limit: 10, owner: 'one', leaseUntil: new Date(Date.now() + 60_000).toISOString() });
      expect(first).toHaveLength(3);
      expect(first.find((claim) => claim.delivery.subscriptionId === subA && claim.event.type === 'entity.created')?.event.id).toBe(events[0]!.id);
      expect(await driver().events.claimDeliveries({ now: later, limit: 10, owner: 'two', leaseUntil: later })).toEqual([]);
      const [settled] = first;
      const outcome = {
        subscriptionId: settled!.delivery.subscriptionId,
        eventId: settled!.delivery.eventId,
        state: 'delivered' as const,
        attempts: 1,
        nextAttemptAt: null,
        lastStatus: 204,
        lastError: null,
        at: later,
      };
      expect(await driver().events.settleDelivery('two', outcome)).toBe(false);
      expect(await driver().events.settleDelivery('one', outcome)).toBe(true);
      expect(await driver().events.settleDelivery('one', outcome)).toBe(false);
      // After the lease ends another claimant takes the rest over, and the first can no longer settle.
      const afterLease = new Date(Date.now() + 120_000).toISOString();
      const second = await driver().events.claimDeliveries({
        now: afterLease,
        limit: 10,
        owner: 'two',
        leaseUntil: new Date(Date.now() + 180_000).toISOString(),
      });
      expect(second).toHaveLength(2);
      const stolen = second[0]!;
      expect(
        await driver().events.settleDelivery('one', { ...outcome, subscriptionId: stolen.delivery.subscriptionId, eventId: stolen.delivery.eventId }),
      ).toBe(false);
      expect(
        await driver().events.settleDelivery('two', {
          ...outcome,
          subscriptionId: stolen.delivery.subscriptionId,
          eventId: stolen.delivery.eventId,
          state: 'dead',
          lastError: 'HTTP 500',
          lastStatus: 500,
        }),
      ).toBe(true);
      const states = [...(await driver().events.listDeliveries(stolen.delivery.eventId))].find(
        (delivery) => delivery.subscriptionId === stolen.delivery.subscriptionId,
      );
      expect(states).toMatchObject({ state: 'dead', attempts: 1, lastStatus: 500, lastError: 'HTTP 500', tenantId: ctx.actor.tenantId });
      const total = (counts: { pending: number; delivered: number; dead: number }) => counts.pending + counts.delivered + counts.dead;
      expect(total(await driver().events.deliveryCounts(subA)) + total(await driver().events.deliveryCounts(subB))).toBe(3);
    });
  });
}
