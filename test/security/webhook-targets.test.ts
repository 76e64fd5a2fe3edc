/**
 * Webhook targets must be public addresses (docs/events.md#where-webhooks-may-go): a URL whose host
 * is a loopback, private, link-local or cloud-metadata address (in any spelling the URL parser
 * accepts) is refused when the dispatcher is created; a name resolving to one is refused when a
 * delivery connects, and the connection goes to the addresses that were checked. Loopback and
 * private networks are allowed with `allowTargets`; the rest never. Real receivers on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createGovernedService,
  createWebhookDispatcher,
  generateWebhookSecret,
  memoryStorage,
  type WebhookDispatcherOptions,
  type WebhookTargetAllowance,
} from 'cellgate';
import { ORDER_DOCUMENT, startReceiver } from '../events/support.ts';
import { workspaceAdminContext } from '../../src/testing/storage-conformance-fixtures.ts';

const secret = generateWebhookSecret();
const create = (url: string, allowTargets?: WebhookTargetAllowance) => () =>
  createWebhookDispatcher({
    storage: memoryStorage(),
    subscriptions: [{ id: 'hook', url, secret, principal: 'unrestricted' }],
    ...(allowTargets ? { allowTargets } : {}),
  });

const refusedAlways: Array<[string, RegExp]> = [
  ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata address/],
  ['http://[::ffff:169.254.169.254]/', /cloud metadata address/],
  ['http://[fd00:ec2::254]/', /cloud metadata address/],
  ['http://169.254.10.1/', /link-local address/],
  ['http://[fe80::1]/', /link-local address/],
  ['http://0.0.0.0:8080/', /unspecified address/],
  ['http://[::]/', /unspecified address/],
  ['http://224.0.0.1/', /multicast address/],
  ['http://255.255.255.255/', /reserved address/],
  ['http://100.100.100.200/', /cloud metadata address/],
];
const loopbacks = [
  'http://127.0.0.1:6379/',
  'http://0x7f000001/',
  'http://2130706433/',
  'http://127.1/',
  'http://[::1]/',
  'http://localhost:8080/',
  'http://api.localhost/',
];
const privates = ['http://10.0.0.5/', 'http://172.16.3.4/', 'http://192.168.1.1/', 'http://100.64.0.1/', 'http://[fc00::1]/', 'http://[::ffff:10.0.0.5]/'];

describe('at subscription time', () => {
  it.each(refusedAlways)('refuses %s by default and with every allowance', (url, reason) => {
    for (const allow of [undefined, { loopback: true, privateNetworks: true }]) {
      expect(create(url, allow)).toThrow(ConfigurationError);
      expect(create(url, allow)).toThrow(reason);
    }
  });

  it.each(loopbacks)('refuses the loopback target %s by default, with a hint; allows it with allowTargets.loopback', (url) => {
    expect(create(url)).toThrow(/subscriptions\.0\.url.*must reach a public address: .*loopback .*allowTargets\.loopback/);
    expect(create(url, { loopback: true })).not.toThrow();
    expect(create(url, { privateNetworks: true })).toThrow(ConfigurationError);
  });

  it.each(privates)('refuses the private target %s by default; allows it with allowTargets.privateNetworks', (url) => {
    expect(create(url)).toThrow(/private-network address/);
    expect(create(url, { loopback: true })).toThrow(ConfigurationError);
    expect(create(url, { privateNetworks: true })).not.toThrow();
  });

  it('takes public addresses and names as they are, and refuses a malformed allowance', () => {
    for (const url of ['https://hooks.example.com/in', 'http://93.184.216.34/', 'https://[2606:4700::1111]/']) expect(create(url)).not.toThrow();
    expect(create('https://hooks.example.com/', { loopback: 'yes' } as never)).toThrow(/allowTargets\.loopback/);
    expect(create('https://hooks.example.com/', { everything: true } as never)).toThrow(/allowTargets\.everything/);
    const withResolver = () => createWebhookDispatcher({ storage: memoryStorage(), subscriptions: [], resolveHost: '8.8.8.8' as never });
    expect(withResolver).toThrow(/resolveHost: must be a function/);
  });
});

describe('at delivery time, after DNS resolution', () => {
  /** One event to deliver to `url`; answers the step, the stored delivery and what the receiver saw. */
  async function deliverOnce(url: (receiverUrl: string) => string, options: Partial<WebhookDispatcherOptions>) {
    const storage = memoryStorage();
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    const receiver = await startReceiver(secret);
    try {
      const dispatcher = createWebhookDispatcher({
        storage,
        subscriptions: [{ id: 'hook', url: url(receiver.url), secret, principal: 'unrestricted' }],
        ...options,
      });
      const ctx = workspaceAdminContext([], { requestId: 'r', traceId: null, ip: null, userAgent: null });
      await service.create(ctx, { title: 'o', amount: 1 });
      const step = await dispatcher.runOnce();
      const [event] = await storage.events.listEvents({ tenantId: ctx.actor.tenantId, limit: 1 });
      const [delivery] = await dispatcher.deliveries(event!.id);
      return { step, delivery: delivery!, received: receiver.received.length };
    } finally {
      await receiver.close();
    }
  }
  /** The receiver's URL with its host replaced by `host` (same port). */
  const at = (host: string) => (receiverUrl: string) => receiverUrl.replace('127.0.0.1', host);

  it('refuses a name that resolves to a loopback address, sending nothing; with allowTargets.loopback connects to the address it checked', async () => {
    // A name no DNS knows: the only way to reach the receiver is the address the resolver gave.
    const resolveHost = async (hostname: string) => (hostname === 'hooks.rebind.test' ? ['127.0.0.1'] : []);
    const refused = await deliverOnce(at('hooks.rebind.test'), { resolveHost });
    expect(refused.step).toMatchObject({ attempted: 1, delivered: 0, retrying: 1 });
    expect(refused.delivery.lastError).toBe(
      'WebhookTargetRefused: target refused: hooks.rebind.test resolves to 127.0.0.1 is a loopback address (allowTargets.loopback allows it in development)',
    );
    expect(refused.received).toBe(0);

    const allowed = await deliverOnce(at('hooks.rebind.test'), { resolveHost, allowTargets: { loopback: true } });
    expect(allowed.step).toMatchObject({ attempted: 1, delivered: 1 });
    expect(allowed.received).toBe(1);
  });

  it('refuses a name when any of its addresses is refused (a public and a metadata answer), whatever is allowed', async () => {
    const resolveHost = async () => ['127.0.0.1', '169.254.169.254'];
    const refused = await deliverOnce(at('hooks.mixed.test'), { resolveHost, allowTargets: { loopback: true, privateNetworks: true } });
    expect(refused.delivery.lastError).toMatch(/hooks\.mixed\.test resolves to 169\.254\.169\.254 is a cloud metadata address/);
    expect(refused.received).toBe(0);
    const linkLocal = await deliverOnce(at('hooks.v6.test'), { resolveHost: async () => ['fe80::1'], allowTargets: { loopback: true, privateNetworks: true } });
    expect(linkLocal.delivery.lastError).toMatch(/fe80::1 is a link-local address/);
  });

  it('checks the system resolver answer: localhost reaches the receiver only when loopback is allowed', async () => {
    const allowed = await deliverOnce(at('localhost'), { allowTargets: { loopback: true } });
    expect(allowed.step).toMatchObject({ delivered: 1 });
    expect(allowed.received).toBe(1);
  });
});
