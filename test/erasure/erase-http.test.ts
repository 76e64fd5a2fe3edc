/**
 * Erasure seen over HTTP on a real server (127.0.0.1): after `eraseRecord` no read path answers an
 * erased value: the record, its versions, the audit routes, the change feed, an idempotent replay
 * of the create, and webhook deliveries sent after the erasure to a real receiver that verifies
 * them with `standardwebhooks`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createGovernedApi, createWebhookDispatcher, defineEntity, eraseRecord, generateWebhookSecret, memoryStorage, type Actor } from 'cellgate';
import { cast, ids, send, serve, SECRET } from '../governed/support.ts';
import { startReceiver } from '../events/support.ts';

const Lead = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Lead',
  key: 'sales.lead',
  version: '1.0.0',
  description: 'A sales lead',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: {
    title: { type: 'string' },
    contact: { type: 'string', nullable: true },
    email: { type: 'string', format: 'email', sensitive: true },
  },
});

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('erasure over HTTP', () => {
  it('leaves no erased value on any read path of a real server or in webhook deliveries sent afterwards', async () => {
    const storage = memoryStorage();
    const api = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [Lead], audit: { storeSnapshots: true } });
    await api.migrate();
    const server = await serve(api);
    closers.push(server.close);
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(secret);
    closers.push(receiver.close);
    const dispatcher = createWebhookDispatcher({
      allowTargets: { loopback: true },
      storage,
      subscriptions: [{ id: 'crm', url: `${receiver.url}/hook`, secret, principal: 'unrestricted' }],
    });
    const tokens = await cast();
    const CONTACT = 'Contact Person ERASE-7731';
    const EMAIL = 'erase.7731@leads.example';
    const collection = `/v1/workspaces/${ids.ws}/leads`;
    const body = { title: 'Big deal', contact: CONTACT, email: EMAIL };

    const created = await send(server.url, 'POST', collection, { token: tokens.admin, body, headers: { 'idempotency-key': 'lead-1' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect((await send(server.url, 'PATCH', `${collection}/${id}`, { token: tokens.admin, body: { expectedVersion: 1, title: 'Bigger deal' } })).status).toBe(
      200,
    );

    const reads = async () => {
      const answers = await Promise.all([
        send(server.url, 'GET', `${collection}/${id}`, { token: tokens.admin }),
        send(server.url, 'GET', `${collection}/${id}/versions`, { token: tokens.admin }),
        send(server.url, 'GET', `/v1/audit?resourceId=${id}`, { token: tokens.admin }),
        send(server.url, 'GET', '/v1/events', { token: tokens.admin }),
        send(server.url, 'POST', collection, { token: tokens.admin, body, headers: { 'idempotency-key': 'lead-1' } }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 201]);
      return answers.map((answer) => answer.text).join('\n');
    };
    // The plain field `contact` is in audit diffs, snapshots and events before the erasure.
    expect(await reads()).toContain(CONTACT);

    const admin: Actor = { id: ids.admin, type: 'user', tenantId: ids.tenant, roles: ['admin'], workspaces: {}, permissions: [] };
    const result = await eraseRecord(api.resources.leads!, { actor: admin, scope: { workspaceId: ids.ws } }, id, {
      reason: 'erasure request',
      fields: ['contact', 'email'],
    });
    expect(result.record.data).toMatchObject({ contact: null, email: 'erased@erased.invalid', title: 'Bigger deal', version: 3 });

    const after = await reads();
    expect(after).toContain('Bigger deal');
    expect(after).toContain('entity.erased');
    expect(after).not.toContain(CONTACT);
    expect(after).not.toContain(EMAIL);

    // Deliveries still pending at the erasure read the rewritten outbox.
    const step = await dispatcher.runOnce();
    expect(step.delivered).toBe(3);
    expect(receiver.received.every((request) => request.verified)).toBe(true);
    // Sent concurrently: arrival order is not fixed.
    expect(receiver.received.map((request) => request.body?.type).sort()).toEqual(['entity.created', 'entity.erased', 'entity.updated']);
    expect(JSON.stringify(receiver.received)).not.toContain(CONTACT);
    expect(JSON.stringify(receiver.received)).toContain('Big deal');
  });
});
