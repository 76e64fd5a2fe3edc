/**
 * SQLite: a host killed with SIGKILL between commit and delivery loses nothing; a restarted
 * process on the same database file delivers every committed event (verified by a
 * standardwebhooks receiver on 127.0.0.1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { runningEventHosts, exited, killEventHosts, startEventHost as host, startReceiver } from './support.ts';

const folder = mkdtempSync(join(tmpdir(), 'cellgate-events-restart-'));
afterAll(() => {
  killEventHosts();
  rmSync(folder, { recursive: true, force: true });
});

describe('webhooks on SQLite across a SIGKILL', () => {
  it('a restarted host delivers every event committed before the kill', async () => {
    const database = `sqlite:${join(folder, 'host.db')}`;
    const tenant = crypto.randomUUID();
    const secret = generateWebhookSecret();
    let hanging = true;
    const receiver = await startReceiver(secret, () => (hanging ? 'hang' : 204));
    const env = { DATABASE_URL: database, SECRET: secret, RECEIVER: receiver.url, TIMEOUT_MS: '3000', LEASE_MS: '4000', TENANT: tenant };
    try {
      const first = await host({ ...env, WRITES: '10' });
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThan(0);
      first.kill('SIGKILL');
      await exited(first);
      // The kill reached the dispatcher itself: nothing of the first host runs on.
      expect(runningEventHosts(secret)).toEqual([]);
      const storage = sqliteStorage({ filename: database.slice('sqlite:'.length) });
      const committed = await storage.events.listEvents({ tenantId: tenant, limit: 100 });
      expect(committed).toHaveLength(10);
      expect((await storage.events.deliveryCounts()).delivered).toBe(0);
      hanging = false;
      const second = await host(env);
      await expect.poll(() => storage.events.deliveryCounts(), { timeout: 60_000, interval: 250 }).toEqual({ pending: 0, delivered: 10, dead: 0 });
      second.kill('SIGTERM');
      await exited(second);
      await storage.close();
      const delivered = new Set(receiver.received.filter((request) => request.verified).map((request) => request.id));
      expect(committed.every((event) => delivered.has(event.id))).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
