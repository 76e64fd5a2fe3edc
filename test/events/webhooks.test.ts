/**
 * Webhook delivery on the memory, SQLite and PGlite drivers against a real receiver on 127.0.0.1 that
 * verifies each delivery with the `standardwebhooks` library: signatures, filters, retries with
 * backoff against a receiver failing N times, dead-letter after the last attempt, timeouts, and
 * the in-process onEvent subscriber.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createGovernedService,
  createMetricsRegistry,
  createWebhookDispatcher,
  generateWebhookSecret,
  memoryStorage,
  type GovernedContext,
  type StorageDriver,
} from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { ORDER_DOCUMENT, startReceiver } from './support.ts';
import { sharedPglite } from '../support/pglite.ts';
import { workspaceAdminContext } from '../../src/testing/storage-conformance-fixtures.ts';

const folder = mkdtempSync(join(tmpdir(), 'cellgate-events-'));
const pglite = sharedPglite();
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await pglite.close();
});

const CARD = 'tok_CARD_secret_value';

/** A workspace admin in a fresh tenant and workspace. */
const context = (): GovernedContext => workspaceAdminContext([], { requestId: 'req-1', traceId: null, ip: null, userAgent: null });

const drivers: Array<[string, () => StorageDriver]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => sqliteStorage({ filename: join(folder, `${crypto.randomUUID()}.db`) })],
  ['pglite', pglite.storage],
];

describe.each(drivers)('webhooks on %s', (_name, create) => {
  async function setup() {
    const storage = create();
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    return { storage, service };
  }

  it('signs each delivery so standardwebhooks verifies it, with the redacted event as data, filtered per subscription', async () => {
    const { storage, service } = await setup();
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret);
    const dispatcher = createWebhookDispatcher({
      allowTargets: { loopback: true },
      storage,
      subscriptions: [
        { id: 'all', url: `${receiver.url}/all`, secret, principal: 'unrestricted' },
        { id: 'created', url: `${receiver.url}/created`, secret, principal: 'unrestricted', types: ['entity.created'] },
        { id: 'elsewhere', url: `${receiver.url}/elsewhere`, secret, principal: 'unrestricted', resourceTypes: ['x.Other@v1'] },
      ],
    });
    try {
      const ctx = context();
      const created = await service.create(ctx, { title: 'o', amount: 1, cardToken: CARD });
      await service.update(ctx, created.data.id, { expectedVersion: 1, amount: 2 });
      const step = await dispatcher.runOnce();
      expect(step).toMatchObject({ fannedOut: 2, attempted: 3, delivered: 3, retrying: 0, dead: 0 });
      expect(receiver.received.every((request) => request.verified)).toBe(true);
      expect(receiver.received.map((request) => [request.path, request.body?.type]).sort()).toEqual([
        ['/all', 'entity.created'],
        ['/all', 'entity.updated'],
        ['/created', 'entity.created'],
      ]);
      const events = await storage.events.listEvents({ tenantId: ctx.actor.tenantId, limit: 10 });
      const first = receiver.received.find((request) => request.path === '/all' && request.body?.type === 'entity.created')!;
      expect(first.id).toBe(events[0]!.id);
      expect(first.body!.data).toEqual(events[0]);
      expect(JSON.stringify(receiver.received)).not.toContain(CARD);
      expect(await dispatcher.counts()).toEqual({ pending: 0, delivered: 3, dead: 0 });
      expect(
        (await dispatcher.deliveries(events[0]!.id)).map((delivery) => [delivery.subscriptionId, delivery.state, delivery.attempts, delivery.lastStatus]),
      ).toEqual([
        ['all', 'delivered', 1, 204],
        ['created', 'delivered', 1, 204],
      ]);
      expect((await dispatcher.runOnce()).attempted).toBe(0);
      // A receiver with another secret rejects the signature.
      const wrong = await startReceiver(generateWebhookSecret());
      const other = createWebhookDispatcher({
        allowTargets: { loopback: true },
        storage,
        subscriptions: [{ id: 'wrong', url: wrong.url, secret, principal: 'unrestricted' }],
      });
      await service.create(ctx, { title: 'p', amount: 1 });
      await other.runOnce();
      expect(wrong.received.map((request) => request.verified)).toEqual([false]);
      await wrong.close();
    } finally {
      await receiver.close();
      await storage.close();
    }
  });

  it('keeps no listener per idle poll on its stop signal (it runs for as long as the host does)', async () => {
    const { storage } = await setup();
    const dispatcher = createWebhookDispatcher({ allowTargets: { loopback: true }, storage, subscriptions: [], pollIntervalMs: 1 });
    // Node warns once an event target holds more than 10 listeners of one kind.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      dispatcher.start();
      await new Promise((resolve) => setTimeout(resolve, 200)); // dozens of idle polls
      await dispatcher.stop();
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a later tick
      expect(warnings.filter((name) => name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('retries with exponential backoff against a receiver that fails 3 times, then delivers', async () => {
    const { storage, service } = await setup();
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret, (_id, attempt) => (attempt <= 3 ? 500 : 204));
    const metrics = createMetricsRegistry();
    const dispatcher = createWebhookDispatcher({
      allowTargets: { loopback: true },
      storage,
      metrics,
      subscriptions: [{ id: 'flaky', url: receiver.url, secret, principal: 'unrestricted' }],
      backoff: { initialMs: 40 },
      pollIntervalMs: 5,
    });
    try {
      const ctx = context();
      await service.create(ctx, { title: 'o', amount: 1 });
      dispatcher.start();
      await expect.poll(() => dispatcher.counts(), { timeout: 10_000 }).toEqual({ pending: 0, delivered: 1, dead: 0 });
      await dispatcher.stop();
      expect(receiver.received.map((request) => [request.attempt, request.verified])).toEqual([
        [1, true],
        [2, true],
        [3, true],
        [4, true],
      ]);
      const [delivery] = await dispatcher.deliveries(receiver.received[0]!.id);
      expect(delivery).toMatchObject({ state: 'delivered', attempts: 4, lastStatus: 204, lastError: null });
      expect(dispatcher.metrics()).toEqual({ attempts: 4, delivered: 1, failures: 3, deadLettered: 0 });
      expect(metrics.render()).toMatch(/webhook_delivery_attempt_total\{[^}]*outcome="retry"[^}]*\} 3/);
      expect(metrics.render()).toMatch(/webhook_delivery_attempt_total\{[^}]*outcome="delivered"[^}]*\} 1/);
    } finally {
      await dispatcher.stop();
      await receiver.close();
      await storage.close();
    }
  });

  it('backs off between attempts: the next attempt is not due before the delay', async () => {
    const { storage, service } = await setup();
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret, () => 503);
    const dispatcher = createWebhookDispatcher({
      allowTargets: { loopback: true },
      storage,
      subscriptions: [{ id: 'down', url: receiver.url, secret, principal: 'unrestricted' }],
      backoff: { initialMs: 60_000 },
    });
    try {
      await service.create(context(), { title: 'o', amount: 1 });
      const before = Date.now();
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, retrying: 1 });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 0 });
      const [delivery] = await dispatcher.deliveries(receiver.received[0]!.id);
      expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 503, lastError: 'HTTP 503' });
      expect(Date.parse(delivery!.nextAttemptAt!) - before).toBeGreaterThanOrEqual(59_000);
    } finally {
      await receiver.close();
      await storage.close();
    }
  });

  it('dead-letters after maxAttempts and never tries again', async () => {
    const { storage, service } = await setup();
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret, () => 500);
    const dispatcher = createWebhookDispatcher({
      allowTargets: { loopback: true },
      storage,
      subscriptions: [{ id: 'dead', url: receiver.url, secret, principal: 'unrestricted' }],
      maxAttempts: 3,
      backoff: { initialMs: 10, maxMs: 20 },
      pollIntervalMs: 5,
    });
    try {
      await service.create(context(), { title: 'o', amount: 1 });
      dispatcher.start();
      await expect.poll(() => dispatcher.counts('dead'), { timeout: 10_000 }).toEqual({ pending: 0, delivered: 0, dead: 1 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await dispatcher.stop();
      expect(receiver.received.map((request) => request.attempt)).toEqual([1, 2, 3]);
      const [delivery] = await dispatcher.deliveries(receiver.received[0]!.id);
      expect(delivery).toMatchObject({ state: 'dead', attempts: 3, lastStatus: 500, nextAttemptAt: null });
    } finally {
      await dispatcher.stop();
      await receiver.close();
      await storage.close();
    }
  });

  it('stores why an unreachable receiver failed (connection refused) and logs one warn line per failed attempt', async () => {
    const { storage, service } = await setup();
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret, () => 204);
    const url = receiver.url;
    await receiver.close(); // nothing listens there any more: connection refused
    const lines: Array<{ fields: Record<string, unknown>; message: string | undefined }> = [];
    const dispatcher = createWebhookDispatcher({
      allowTargets: { loopback: true },
      storage,
      subscriptions: [{ id: 'gone', url, secret, principal: 'unrestricted' }],
      maxAttempts: 2,
      backoff: { initialMs: 1, maxMs: 1 },
      logger: { warn: (fields, message) => lines.push({ fields, message }) },
    });
    try {
      await service.create(context(), { title: 'o', amount: 1 });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, retrying: 1 });
      await new Promise((resolve) => setTimeout(resolve, 10)); // past the 1 ms backoff
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, dead: 1 });
      const [delivery] = await dispatcher.deliveries(String(lines[0]?.fields.eventId));
      expect(delivery).toMatchObject({ state: 'dead', attempts: 2, lastStatus: null });
      expect(delivery!.lastError).toMatch(/ECONNREFUSED/);
      expect(lines.map((line) => [line.fields.attempt, line.fields.state, line.fields.subscription])).toEqual([
        [1, 'pending', 'gone'],
        [2, 'dead', 'gone'],
      ]);
      expect(lines[1]!.fields.error).toBe(delivery!.lastError);
    } finally {
      await storage.close();
    }
  });

  it('gives up an attempt after timeoutMs and retries it later', async () => {
    const { storage, service } = await setup();
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret, () => 'hang');
    const dispatcher = createWebhookDispatcher({
      allowTargets: { loopback: true },
      storage,
      subscriptions: [{ id: 'slow', url: receiver.url, secret, principal: 'unrestricted' }],
      timeoutMs: 200,
      leaseMs: 1000,
    });
    try {
      await service.create(context(), { title: 'o', amount: 1 });
      const started = Date.now();
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, retrying: 1 });
      expect(Date.now() - started).toBeLessThan(5000);
      const [delivery] = await dispatcher.deliveries(receiver.received[0]!.id);
      expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
      expect(delivery!.lastError).toMatch(/Timeout|abort/i);
    } finally {
      await receiver.close();
      await storage.close();
    }
  });
});

describe('subscription filters', () => {
  it('a filter that throws skips that subscription for the event, reports it, and blocks nothing', async () => {
    const storage = memoryStorage();
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret);
    const errors: unknown[] = [];
    const dispatcher = createWebhookDispatcher({
      allowTargets: { loopback: true },
      storage,
      onError: (error) => errors.push(error),
      subscriptions: [
        {
          id: 'broken',
          url: `${receiver.url}/broken`,
          secret,
          principal: 'unrestricted',
          filter: () => {
            throw new Error('filter bug');
          },
        },
        { id: 'fine', url: `${receiver.url}/fine`, secret, principal: 'unrestricted' },
      ],
    });
    try {
      await service.create(context(), { title: 'o', amount: 1 });
      expect(await dispatcher.runOnce()).toMatchObject({ fannedOut: 1, delivered: 1 });
      expect(receiver.received.map((request) => request.path)).toEqual(['/fine']);
      expect(errors.map((error) => (error as Error).message)).toEqual(['filter bug']);
    } finally {
      await receiver.close();
    }
  });
});

describe('dispatcher options', () => {
  it('refuses a bad secret, URL, duplicate id or a lease shorter than the timeout', () => {
    const storage = memoryStorage();
    const secret = generateWebhookSecret();
    const make = (options: Partial<Parameters<typeof createWebhookDispatcher>[0]>) => () => createWebhookDispatcher({ storage, subscriptions: [], ...options });
    expect(make({ subscriptions: [{ id: 'a', url: 'https://hooks.example.com/', secret: 'plain', principal: 'unrestricted' }] })).toThrow(ConfigurationError);
    expect(make({ subscriptions: [{ id: 'a', url: 'ftp://example.com/', secret, principal: 'unrestricted' }] })).toThrow(/url/);
    expect(
      make({
        subscriptions: [
          { id: 'a', url: 'https://hooks.example.com/', secret, principal: 'unrestricted' },
          { id: 'a', url: 'https://hooks.example.com/', secret, principal: 'unrestricted' },
        ],
      }),
    ).toThrow(/twice/);
    expect(make({ timeoutMs: 5000, leaseMs: 5000 })).toThrow(/leaseMs/);
    expect(make({ batchSize: 10_000 })).toThrow(/batchSize/);
  });
});

describe('onEvent', () => {
  it('is called after commit; a throwing or rejecting subscriber is logged and never fails the write', async () => {
    const storage = memoryStorage();
    const logged: string[] = [];
    let calls = 0;
    const service = createGovernedService({
      entity: ORDER_DOCUMENT,
      storage,
      logger: (entry) => logged.push(entry.event),
      onEvent: (event) => {
        calls += 1;
        if (event.type === 'entity.created') throw new Error('subscriber broke');
        return Promise.reject(new Error('async subscriber broke'));
      },
    });
    await storage.migrate([service.model]);
    const ctx = context();
    const created = await service.create(ctx, { title: 'o', amount: 1 });
    await service.update(ctx, created.data.id, { expectedVersion: 1, amount: 2 });
    await expect.poll(() => logged.filter((event) => event === 'event.subscriber_failed').length).toBe(2);
    expect(calls).toBe(2);
    expect((await service.get(ctx, created.data.id)).data.version).toBe(2);
    // A refused write calls nothing.
    await service.update(ctx, created.data.id, { expectedVersion: 1, amount: 3 }).catch(() => undefined);
    expect(calls).toBe(2);
  });
});
