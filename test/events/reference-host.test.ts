/**
 * The reference host (a real child process) with events: the demo customers emit events into the
 * change feed it serves, the tier-3 activity events do not, and the webhook configured by
 * CELLGATE_WEBHOOK_URL / CELLGATE_WEBHOOK_SECRET reaches a receiver that verifies it with
 * standardwebhooks. Personal data is redacted in both, as in the audit.
 */
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret } from 'cellgate';
import { startHost } from '../governed/processes.ts';
import { send } from '../governed/support.ts';
import { startReceiver } from './support.ts';

describe('reference host: events', () => {
  it('serves the feed for tier-1/2 resources and delivers the configured webhook', async () => {
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret);
    const host = await startHost(
      { CELLGATE_WEBHOOK_URL: `${receiver.url}/hooks`, CELLGATE_WEBHOOK_SECRET: secret, CELLGATE_WEBHOOK_ALLOW: 'loopback' },
      /^\s+try\s+curl/,
    );
    try {
      const banner = host.lines.join('\n');
      expect(banner).toMatch(/events\s+\/v1\/events/);
      expect(banner).toMatch(/webhook\s+http:\/\/127\.0\.0\.1/);
      const token = /Bearer ([\w-]+\.[\w-]+\.[\w-]+)/.exec(banner)![1]!;
      const workspace = /\/v1\/workspaces\/([0-9a-f-]{36})\/customers/.exec(banner)![1]!;
      const created = await send(host.url, 'POST', `/v1/workspaces/${workspace}/customers`, {
        token,
        body: { name: 'Ada', email: 'ada.private@example.com', status: 'lead' },
      });
      expect(created.status).toBe(201);
      expect((await send(host.url, 'POST', '/v1/activity-events', { token, body: { action: 'login' } })).status).not.toBe(500);
      const feed = await send(host.url, 'GET', '/v1/events?wait=5', { token });
      expect(feed.status).toBe(200);
      expect(feed.body.data.map((event: { type: string; resourceType: string }) => [event.type, event.resourceType])).toEqual([
        ['entity.created', 'crm.Customer@v1'],
      ]);
      expect(feed.text).not.toContain('ada.private@example.com');
      await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
      expect(receiver.received[0]).toMatchObject({ verified: true, path: '/hooks', id: feed.body.data[0].id });
      expect(JSON.stringify(receiver.received)).not.toContain('ada.private@example.com');
    } finally {
      await host.stop();
      await receiver.close();
    }
  });

  it('refuses to start with only one of the webhook variables', async () => {
    await expect(startHost({ CELLGATE_WEBHOOK_URL: 'http://127.0.0.1:9/hooks' })).rejects.toThrow(/CELLGATE_WEBHOOK_SECRET/);
  });
});
