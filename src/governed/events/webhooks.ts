/**
 * `createWebhookDispatcher`: delivers committed events from the outbox to webhook subscriptions
 * configured in code, at least once, signed by the Standard Webhooks specification.
 *
 * Each step: fan out (new committed events get one pending delivery per matching subscription,
 * stored), then claim a bounded batch of due deliveries under a lease, POST each with a timeout,
 * and store the outcome. All state lives in storage, so a process that dies loses nothing: its
 * leases expire and another dispatcher (or the restarted one) takes the deliveries over. On
 * PostgreSQL, claims use `FOR UPDATE SKIP LOCKED`, so several processes never hold the same
 * delivery at once. Targets must be public addresses: checked when the dispatcher is created (IP
 * literals, `localhost`) and again at each connection, after DNS resolution (webhook-send.ts).
 */
import { ConfigurationError } from '../../errors.ts';
import { WEBHOOK_ERROR_TEXT_LENGTH, WEBHOOK_MAX_BATCH } from '../../limits.ts';
import type { ClaimedDelivery, DeliveryCounts, DomainEventType, EventDelivery, StorageDriver, StoredEvent } from '../../storage/types.ts';
import type { Logger } from '../../logging.ts';
import type { MetricsRegistry } from '../metrics.ts';
import type { AccessPrincipal, ApiAccess } from '../principal-access.ts';
import { importSigningKey, secretBytes, signWebhook } from './signing.ts';
import { createWebhookSend, type ResolveHost } from './webhook-send.ts';
import { hostRefusal, type WebhookTargetAllowance } from './webhook-target.ts';

export type { ResolveHost } from './webhook-send.ts';
export type { WebhookTargetAllowance } from './webhook-target.ts';

/** One webhook subscription. Every process dispatching for a storage must configure the same list. */
export interface WebhookSubscription {
  /** Stable id (delivery state is stored under it): `[A-Za-z0-9_.-]{1,64}`. */
  id: string;
  /**
   * Where deliveries are POSTed (http or https). Must reach a public address: loopback, private,
   * link-local, cloud-metadata and reserved addresses are refused (see `allowTargets`).
   */
  url: string;
  /** Standard Webhooks secret, `whsec_<base64>` (see `generateWebhookSecret()`). */
  secret: string;
  /** Only these event types. @default every type */
  types?: readonly DomainEventType[];
  /** Only these resource types (`crm.Invoice@v1`). @default every resource */
  resourceTypes?: readonly string[];
  /** Only these tenants. @default every tenant */
  tenants?: readonly string[];
  /** Any further filter; an event is delivered when this returns true. */
  filter?: (event: StoredEvent) => boolean;
  /**
   * Whom the receiver is (docs/field-access.md, docs/decisions/B34.md): roles as a token would
   * carry them. Only events within their history reach are delivered, and each payload holds only
   * the fields those roles may view. `'unrestricted'` delivers every event whole (as the audit
   * stores it: sensitive values stay redacted) to a receiver the operator trusts with all of them.
   * A principal with roles needs the dispatcher's `access` option.
   */
  principal: AccessPrincipal | 'unrestricted';
}

/** Options of {@link createWebhookDispatcher}. */
export interface WebhookDispatcherOptions {
  /** The storage the governed resources write to (migrated). */
  storage: StorageDriver;
  subscriptions: readonly WebhookSubscription[];
  /** Attempts before a delivery is dead-lettered (state `dead`, never tried again). @default 8 */
  maxAttempts?: number;
  /** Delay after the n-th failed attempt: `min(maxMs, initialMs × 2^(n-1))`. @default { initialMs: 1000, maxMs: 3_600_000 } */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Time limit of one delivery request (AbortSignal.timeout). @default 10000 */
  timeoutMs?: number;
  /** How long a claim is exclusive; must exceed `timeoutMs`. @default timeoutMs + 30000 */
  leaseMs?: number;
  /** Events fanned out and deliveries claimed per step (at most 500). @default 50 */
  batchSize?: number;
  /** Pause of the `start()` loop when a step found nothing to do. @default 1000 */
  pollIntervalMs?: number;
  /** Receives storage failures of the background loop (it keeps running) and errors thrown by a subscription's `filter`. @default console.error */
  onError?: (error: unknown) => void;
  /**
   * Receives one `warn` line per failed attempt (subscription, event, attempt, receiver status,
   * error, and the next attempt or `dead`), so an outage shows in the logs, not only in the
   * delivery rows. @default none
   */
  logger?: Pick<Logger, 'warn'>;
  /**
   * Registry receiving `webhook_delivery_attempt_total{subscription, outcome}` (outcome
   * `delivered`, `retry` or `dead`), e.g. the one the host renders at `/metrics`. @default none
   */
  metrics?: MetricsRegistry;
  /**
   * Non-public targets to allow, for development: `{ loopback: true }` for a receiver on the same
   * machine, `privateNetworks` for one on the local network. Link-local, cloud-metadata,
   * unspecified, multicast and reserved addresses are refused whatever this says.
   * @default {} (public addresses only)
   */
  allowTargets?: WebhookTargetAllowance;
  /**
   * Resolves a target's host name to its addresses, each of which must be allowed; the connection
   * goes to those addresses. @default the system resolver (`dns.lookup`, all addresses)
   */
  resolveHost?: ResolveHost;
  /**
   * The access decisions of the API whose events are delivered (`api.access` of
   * `createGovernedApi`): what applies each subscription's `principal`. Required when a
   * subscription's principal has roles.
   */
  access?: ApiAccess;
}

/** What one {@link WebhookDispatcher.runOnce} step did. */
export interface DispatchStep {
  /** Committed events given their deliveries. */
  fannedOut: number;
  /** Delivery attempts made. */
  attempted: number;
  delivered: number;
  /** Failed attempts that will be retried. */
  retrying: number;
  /** Failed attempts that used the last one. */
  dead: number;
}

/** In-process counters since the dispatcher was created. */
export interface DispatcherMetrics {
  attempts: number;
  delivered: number;
  failures: number;
  deadLettered: number;
}

/** The dispatcher the host starts and stops. */
export interface WebhookDispatcher {
  /** Runs steps in the background until {@link stop}. Idempotent. */
  start(): void;
  /** Stops the loop and waits for the attempts in flight (each bounded by `timeoutMs`). */
  stop(): Promise<void>;
  /** One step now (fan out, claim, deliver, record); what `start()` repeats. */
  runOnce(): Promise<DispatchStep>;
  /** Stored deliveries by state (of every process), of one subscription or all. */
  counts(subscriptionId?: string): Promise<DeliveryCounts>;
  /** Stored state of every delivery of one event. */
  deliveries(eventId: string): Promise<EventDelivery[]>;
  /** This process's counters. */
  metrics(): DispatcherMetrics;
}

interface Prepared extends WebhookSubscription {
  key: Promise<CryptoKey>;
}

function positiveInt(value: number | undefined, fallback: number, path: string, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) throw new ConfigurationError(path, `must be an integer from 1 to ${max}.`);
  return value;
}

/** Checks a subscription's `principal` (required: docs/decisions/B34.md). */
function checkPrincipal(principal: unknown, path: string, access: ApiAccess | undefined): void {
  if (principal === 'unrestricted') return;
  if (principal === null || typeof principal !== 'object' || Array.isArray(principal))
    throw new ConfigurationError(`${path}.principal`, "is required: { roles?, workspaces?, plan? } of the receiver, or 'unrestricted'.");
  const { roles, workspaces, plan, ...rest } = principal as AccessPrincipal;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw new ConfigurationError(`${path}.principal.${extra}`, 'is not an option: use roles, workspaces or plan.');
  const isRoles = (value: unknown) => Array.isArray(value) && value.every((role) => typeof role === 'string');
  if (roles !== undefined && !isRoles(roles)) throw new ConfigurationError(`${path}.principal.roles`, 'must be an array of role names.');
  if (workspaces !== undefined && (workspaces === null || typeof workspaces !== 'object' || !Object.values(workspaces).every(isRoles)))
    throw new ConfigurationError(`${path}.principal.workspaces`, 'must map workspace ids to arrays of role names.');
  if (plan !== undefined && typeof plan !== 'string') throw new ConfigurationError(`${path}.principal.plan`, 'must be a string.');
  if (access === undefined)
    throw new ConfigurationError(`${path}.principal`, 'needs the dispatcher option access (api.access of createGovernedApi) to apply its roles.');
}

function prepare(subscriptions: readonly WebhookSubscription[], allow: WebhookTargetAllowance, access: ApiAccess | undefined): Prepared[] {
  if (!Array.isArray(subscriptions)) throw new ConfigurationError('subscriptions', 'must be an array.');
  const seen = new Set<string>();
  return subscriptions.map((subscription, index) => {
    const path = `subscriptions.${index}`;
    if (typeof subscription.id !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(subscription.id))
      throw new ConfigurationError(`${path}.id`, 'must match [A-Za-z0-9_.-]{1,64}.');
    if (seen.has(subscription.id)) throw new ConfigurationError(`${path}.id`, `"${subscription.id}" is used twice.`);
    seen.add(subscription.id);
    let url: URL | undefined;
    try {
      url = new URL(subscription.url);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new ConfigurationError(`${path}.url`, 'must be an http or https URL.');
    const refusal = hostRefusal(url.hostname, allow);
    if (refusal !== undefined) throw new ConfigurationError(`${path}.url`, `must reach a public address: ${refusal}.`);
    checkPrincipal(subscription.principal, path, access);
    return { ...subscription, key: importSigningKey(secretBytes(subscription.secret, `${path}.secret`)) };
  });
}

/** The event as the subscription's principal may see it, or null when it is out of the principal's reach. */
function eventFor(subscription: WebhookSubscription, event: StoredEvent, access: ApiAccess | undefined): StoredEvent | null {
  return subscription.principal === 'unrestricted' ? event : (access?.eventFor(subscription.principal, event) ?? null);
}

function matches(subscription: WebhookSubscription, event: StoredEvent, access: ApiAccess | undefined): boolean {
  if (eventFor(subscription, event, access) === null) return false;
  if (subscription.types !== undefined && !subscription.types.includes(event.type)) return false;
  if (subscription.resourceTypes !== undefined && !subscription.resourceTypes.includes(event.resourceType)) return false;
  if (subscription.tenants !== undefined && !subscription.tenants.includes(event.tenantId)) return false;
  return subscription.filter === undefined || subscription.filter(event);
}

/** Checks `allowTargets`: an object of booleans, nothing else. */
function allowanceOf(allow: WebhookTargetAllowance | undefined): WebhookTargetAllowance {
  if (allow === undefined) return {};
  if (typeof allow !== 'object' || allow === null) throw new ConfigurationError('allowTargets', 'must be an object: { loopback?, privateNetworks? }.');
  for (const key of Object.keys(allow)) {
    if (key !== 'loopback' && key !== 'privateNetworks')
      throw new ConfigurationError(`allowTargets.${key}`, 'is not an option: use loopback or privateNetworks.');
    if (typeof allow[key] !== 'boolean') throw new ConfigurationError(`allowTargets.${key}`, 'must be true or false.');
  }
  return { ...allow };
}

/**
 * What went wrong with an attempt, with its cause: fetch rejects with a bare `TypeError: fetch
 * failed` and keeps the reason (`connect ECONNREFUSED 10.0.0.7:443`, a TLS error…) in `cause`,
 * which operators need to tell a receiver down from a bad certificate (issue #32).
 */
const errorText = (error: unknown): string => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const reason =
    cause === undefined || cause === null ? '' : typeof cause.message === 'string' && cause.message !== '' ? cause.message : String(cause.code ?? '');
  return (reason === '' ? text : `${text} (${reason})`).slice(0, WEBHOOK_ERROR_TEXT_LENGTH);
};

/**
 * Creates a webhook dispatcher over `storage`. Nothing runs until `start()` (or `runOnce()`).
 *
 * @example
 * const dispatcher = createWebhookDispatcher({
 *   storage,
 *   subscriptions: [{ id: 'billing', url: 'https://billing.example.com/hooks', secret: process.env.BILLING_WEBHOOK_SECRET!, types: ['entity.created'] }],
 * });
 * dispatcher.start();
 * process.on('SIGTERM', () => void dispatcher.stop());
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { storage } = options;
  if (storage === undefined || typeof storage.events?.claimDeliveries !== 'function')
    throw new ConfigurationError('storage', 'is required: a StorageDriver with an event store.');
  const allowTargets = allowanceOf(options.allowTargets);
  const { access } = options;
  const subscriptions = prepare(options.subscriptions, allowTargets, access);
  if (options.resolveHost !== undefined && typeof options.resolveHost !== 'function') throw new ConfigurationError('resolveHost', 'must be a function.');
  const send = createWebhookSend(allowTargets, options.resolveHost);
  const byId = new Map(subscriptions.map((subscription) => [subscription.id, subscription]));
  const maxAttempts = positiveInt(options.maxAttempts, 8, 'maxAttempts', 100);
  const initialMs = positiveInt(options.backoff?.initialMs, 1000, 'backoff.initialMs');
  const maxMs = positiveInt(options.backoff?.maxMs, 3_600_000, 'backoff.maxMs');
  const timeoutMs = positiveInt(options.timeoutMs, 10_000, 'timeoutMs');
  const leaseMs = positiveInt(options.leaseMs, timeoutMs + 30_000, 'leaseMs');
  if (leaseMs <= timeoutMs) throw new ConfigurationError('leaseMs', 'must be longer than timeoutMs, so a claim outlives its attempt.');
  const batchSize = positiveInt(options.batchSize, 50, 'batchSize', WEBHOOK_MAX_BATCH);
  const pollIntervalMs = positiveInt(options.pollIntervalMs, 1000, 'pollIntervalMs');
  const onError = options.onError ?? ((error: unknown) => console.error('cellgate: webhook dispatcher step failed', error));
  const owner = crypto.randomUUID();
  const counters: DispatcherMetrics = { attempts: 0, delivered: 0, failures: 0, deadLettered: 0 };

  const attemptCounter = options.metrics?.counter(
    'webhook_delivery_attempt_total',
    'Webhook delivery attempts by subscription and outcome (delivered, retry, dead).',
  );

  // A filter that throws must not block the outbox: that subscription skips the event, the error is reported.
  const accepts = (subscription: WebhookSubscription, event: StoredEvent): boolean => {
    try {
      return matches(subscription, event, access);
    } catch (error) {
      onError(error);
      return false;
    }
  };
  const route = (event: StoredEvent): string[] => subscriptions.filter((subscription) => accepts(subscription, event)).map((subscription) => subscription.id);

  /** One POST; resolves the status, or throws on no answer (network error, timeout). */
  async function post(subscription: Prepared, stored: StoredEvent): Promise<number> {
    // Routed events were within reach; a principal whose reach shrank since gets nothing of it.
    const event = eventFor(subscription, stored, access);
    if (event === null) return 204;
    const body = JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: event });
    const headers = await signWebhook(await subscription.key, event.id, Math.floor(Date.now() / 1000), body);
    return send(subscription.url, { ...headers, 'content-type': 'application/json' }, body, timeoutMs);
  }

  async function attempt(claimed: ClaimedDelivery, step: DispatchStep): Promise<void> {
    const { delivery, event } = claimed;
    const subscription = byId.get(delivery.subscriptionId);
    const attempts = delivery.attempts + 1;
    let status: number | null = null;
    let error: string | null = null;
    if (subscription === undefined) error = 'subscription no longer configured';
    else {
      try {
        status = await post(subscription, event);
        if (status < 200 || status > 299) error = `HTTP ${status}`;
      } catch (failure) {
        error = errorText(failure);
      }
    }
    counters.attempts += 1;
    step.attempted += 1;
    const at = new Date().toISOString();
    let state: EventDelivery['state'] = 'delivered';
    let nextAttemptAt: string | null = null;
    if (error === null) {
      counters.delivered += 1;
      step.delivered += 1;
    } else if (attempts >= maxAttempts) {
      state = 'dead';
      counters.failures += 1;
      counters.deadLettered += 1;
      step.dead += 1;
    } else {
      state = 'pending';
      nextAttemptAt = new Date(Date.now() + Math.min(maxMs, initialMs * 2 ** (attempts - 1))).toISOString();
      counters.failures += 1;
      step.retrying += 1;
    }
    attemptCounter?.inc({ subscription: delivery.subscriptionId, outcome: state === 'pending' ? 'retry' : state });
    if (error !== null) {
      options.logger?.warn(
        { subscription: delivery.subscriptionId, eventId: delivery.eventId, attempt: attempts, status, error, state, nextAttemptAt },
        state === 'dead' ? 'webhook delivery dead after its last attempt' : 'webhook attempt failed; retrying later',
      );
    }
    await storage.events.settleDelivery(owner, {
      subscriptionId: delivery.subscriptionId,
      eventId: delivery.eventId,
      state,
      attempts,
      nextAttemptAt,
      lastStatus: status,
      lastError: error,
      at,
    });
  }

  async function runOnce(): Promise<DispatchStep> {
    const step: DispatchStep = { fannedOut: 0, attempted: 0, delivered: 0, retrying: 0, dead: 0 };
    const now = new Date();
    step.fannedOut = await storage.events.fanOut(batchSize, route, now.toISOString());
    const claimed = await storage.events.claimDeliveries({
      now: now.toISOString(),
      limit: batchSize,
      owner,
      leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
    });
    await Promise.all(claimed.map((delivery) => attempt(delivery, step)));
    return step;
  }

  let loop: Promise<void> | undefined;
  let stopping: AbortController | undefined;

  async function run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let busy = false;
      try {
        const step = await runOnce();
        busy = step.fannedOut > 0 || step.attempted > 0;
      } catch (error) {
        onError(error);
      }
      if (!busy && !signal.aborted) {
        await new Promise<void>((resolve) => {
          // The listener goes when the wait ends either way: left on the loop's long-lived signal,
          // one per idle poll, they would pile up for as long as the dispatcher runs.
          const wake = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', wake);
            resolve();
          };
          const timer = setTimeout(wake, pollIntervalMs);
          signal.addEventListener('abort', wake, { once: true });
        });
      }
    }
  }

  return {
    start() {
      if (loop !== undefined) return;
      stopping = new AbortController();
      loop = run(stopping.signal);
    },
    async stop() {
      stopping?.abort();
      await loop;
      loop = undefined;
      stopping = undefined;
    },
    runOnce,
    counts: (subscriptionId) => storage.events.deliveryCounts(subscriptionId),
    deliveries: (eventId) => storage.events.listDeliveries(eventId),
    metrics: () => ({ ...counters }),
  };
}
