/**
 * Webhook delivery by several processes on one PostgreSQL: two dispatcher processes deliver 1,000
 * events with no delivery of an event in flight twice at once (and, the receiver always answering,
 * none delivered twice at all); and a host killed with SIGKILL between commit and delivery loses
 * nothing: a restarted process delivers every event. Real processes, real receiver on 127.0.0.1.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createGovernedService, generateWebhookSecret, type Actor } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from '../storage/drivers.ts';
import { exited, killEventHosts, ORDER_DOCUMENT, startEventHost, startReceiver } from './support.ts';

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const skip = server.ok ? undefined : server.skip;
if (skip) console.warn(`postgres event process tests skipped: ${skip}`);
const url = server.ok ? server.db.url : '';
afterAll(async () => {
  if (server.ok) await server.db.stop();
});

afterAll(killEventHosts);

/** A host process on this test's database. */
const host = (env: Record<string, string>) => startEventHost({ DATABASE_URL: url, ...env });

describe.skipIf(Boolean(skip))(`webhooks across processes on PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('two processes deliver 1,000 events, each exactly once, never the same one at the same time', async () => {
    const storage = postgresStorage({ connectionString: url });
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
    const queue = Array.from({ length: 1000 }, (_, index) => index);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let index = queue.shift(); index !== undefined; index = queue.shift())
          await service.create({ actor, scope: { workspaceId } }, { title: `o${index}`, amount: index });
      }),
    );
    const secret = generateWebhookSecret();
    // Each answer takes a few milliseconds, so two claims of one event would overlap at the receiver.
    const receiver = await startReceiver(secret, () => 204, 3);
    try {
      const env = { SECRET: secret, TIMEOUT_MS: '5000' };
      const [one, two] = await Promise.all([host({ ...env, RECEIVER: `${receiver.url}/one` }), host({ ...env, RECEIVER: `${receiver.url}/two` })]);
      await expect.poll(() => storage.events.deliveryCounts('receiver'), { timeout: 120_000, interval: 250 }).toEqual({ pending: 0, delivered: 1000, dead: 0 });
      one!.kill('SIGTERM');
      two!.kill('SIGTERM');
      await Promise.all([exited(one!), exited(two!)]);
      const ids = receiver.received.map((request) => request.id);
      expect(receiver.received.every((request) => request.verified)).toBe(true);
      expect(receiver.received.filter((request) => request.overlapped)).toEqual([]);
      expect(new Set(ids).size).toBe(1000);
      expect(ids).toHaveLength(1000);
      const events = await storage.events.listEvents({ tenantId: actor.tenantId, limit: 500 });
      expect(events.every((event) => ids.includes(event.id))).toBe(true);
      // Both processes took part.
      expect(receiver.received.some((request) => request.path === '/one')).toBe(true);
      expect(receiver.received.some((request) => request.path === '/two')).toBe(true);
    } finally {
      await receiver.close();
      await storage.close();
    }
  });

  it('loses nothing when the host is killed (SIGKILL) between commit and delivery', async () => {
    const storage = postgresStorage({ connectionString: url });
    const tenant = crypto.randomUUID();
    const secret = generateWebhookSecret();
    // The first host's deliveries never get an answer: they are in flight when it dies.
    let hanging = true;
    const receiver = await startReceiver(secret, () => (hanging ? 'hang' : 204));
    try {
      const first = await host({
        SUBSCRIPTION: 'killed',
        SECRET: secret,
        RECEIVER: receiver.url,
        WRITES: '20',
        TENANT: tenant,
        TIMEOUT_MS: '3000',
        LEASE_MS: '4000',
      });
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThan(0);
      first.kill('SIGKILL');
      await exited(first);
      const committed = await storage.events.listEvents({ tenantId: tenant, limit: 100 });
      expect(committed).toHaveLength(20);
      expect((await storage.events.deliveryCounts('killed')).delivered).toBe(0);
      hanging = false;
      const second = await host({ SUBSCRIPTION: 'killed', SECRET: secret, RECEIVER: receiver.url, TIMEOUT_MS: '3000', LEASE_MS: '4000' });
      await expect.poll(() => storage.events.deliveryCounts('killed'), { timeout: 60_000, interval: 250 }).toMatchObject({ pending: 0, delivered: 20 });
      second.kill('SIGTERM');
      await exited(second);
      const delivered = new Set(receiver.received.filter((request) => request.verified && request.body !== null).map((request) => request.id));
      for (const event of committed) expect(delivered.has(event.id)).toBe(true);
    } finally {
      await receiver.close();
      await storage.close();
    }
  });
});
