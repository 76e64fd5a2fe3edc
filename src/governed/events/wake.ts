/**
 * Long-poll waiters of the change feed, per storage. A waiter is a feed request that found no
 * event and waits for one. It is woken:
 * - at once when this process commits an event of its tenant ({@link wakeReaders}), never by
 *   another tenant's commit;
 * - by one look per poll interval ({@link EVENT_FEED_POLL_MS}) that asks the storage for the
 *   latest cursor of every tenant with waiters, in one statement per
 *   {@link EVENT_FEED_HEADS_BATCH} tenants: idle waiters cost no query of their own, and a
 *   waiter wakes only when its tenant's feed moved (a write of another process).
 * Waiters are capped per actor and per process (429 `RATE_LIMITED` with `Retry-After` past a cap).
 */
import { CellgateError } from '../../errors.ts';
import { EVENT_FEED_HEADS_BATCH, EVENT_FEED_POLL_MS, EVENT_FEED_WAITERS_RETRY_AFTER_SECONDS } from '../../limits.ts';
import type { StorageDriver } from '../../storage/types.ts';

/** How many feed requests may wait at once. */
export interface FeedWaiterLimits {
  /** In the whole process (every API and storage). */
  perProcess: number;
  /** Per actor (tenant and actor id). */
  perActor: number;
}

/** The latest cursor of a tenant as last looked up (`null`: no event yet); `undefined` when unknown. */
type Head = string | null | undefined;

interface Waiter {
  /** The tenant's head read before the waiter's own read: a different head means its feed moved since. */
  basis: Head;
  wake(): void;
}

/** Waiting feed requests per actor key, and in all, across the process. */
const waiting = { total: 0, byActor: new Map<string, number>() };

/** Feed requests waiting in this process now (tests and metrics). */
export function waitingFeedRequests(): number {
  return waiting.total;
}

/**
 * Takes a waiter slot for `actorKey`, or throws 429 past a cap. Returns the release function
 * (call it once, when the request stops waiting).
 */
export function admitWaiter(actorKey: string, limits: FeedWaiterLimits): () => void {
  const mine = waiting.byActor.get(actorKey) ?? 0;
  if (waiting.total >= limits.perProcess || mine >= limits.perActor) {
    const scope = mine >= limits.perActor ? 'for this caller' : 'on this server';
    const seconds = EVENT_FEED_WAITERS_RETRY_AFTER_SECONDS;
    throw new CellgateError('RATE_LIMITED', `Too many waiting change-feed requests ${scope}; retry in ${seconds} s, or read without wait.`, {
      details: { retryAfterSeconds: seconds },
      headers: { 'retry-after': String(seconds) },
    });
  }
  waiting.total += 1;
  waiting.byActor.set(actorKey, mine + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    waiting.total -= 1;
    const left = (waiting.byActor.get(actorKey) ?? 1) - 1;
    if (left === 0) waiting.byActor.delete(actorKey);
    else waiting.byActor.set(actorKey, left);
  };
}

/** The waiters of one storage, by tenant, and the periodic look at their tenants' heads. */
class WaiterHub {
  private readonly tenants = new Map<string, { head: Head; waiters: Set<Waiter> }>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly storage: StorageDriver) {}

  /**
   * The tenant's head to compare later heads with, read before the caller's own read of the feed.
   * Known while the tenant has waiters (at most one poll interval old); otherwise looked up now.
   */
  async basis(tenantId: string): Promise<Head> {
    const known = this.tenants.get(tenantId)?.head;
    if (known !== undefined) return known;
    const heads = await this.heads([tenantId]);
    return heads === undefined ? undefined : (heads.get(tenantId) ?? null);
  }

  /** Resolves after `ms`, when `signal` aborts, or when the tenant's feed may have moved past `basis`. */
  next(tenantId: string, basis: Head, ms: number, signal?: AbortSignal): Promise<void> {
    let entry = this.tenants.get(tenantId);
    // A head looked up since the caller's read began that differs from its basis: look again at once.
    if (entry?.head !== undefined && basis !== undefined && entry.head !== basis) return Promise.resolve();
    if (entry === undefined) {
      entry = { head: undefined, waiters: new Set() };
      this.tenants.set(tenantId, entry);
    }
    const waiters = entry.waiters;
    return new Promise((resolve) => {
      const waiter: Waiter = { basis, wake: done };
      const timer = setTimeout(done, ms);
      waiters.add(waiter);
      signal?.addEventListener('abort', done, { once: true });
      this.schedule();
      function done() {
        clearTimeout(timer);
        waiters.delete(waiter);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    });
  }

  /** Wakes every waiter of `tenantId` (a commit of this process). */
  wake(tenantId: string): void {
    const entry = this.tenants.get(tenantId);
    if (entry === undefined) return;
    // The known head stays: older than the woken reads, it can only cause one more look, never a missed event.
    for (const waiter of [...entry.waiters]) waiter.wake();
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => void this.poll(), EVENT_FEED_POLL_MS);
    // Idle waiters must not keep a process alive on their own (Node; other runtimes have no unref).
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** One look at the heads of every tenant with waiters; wakes the waiters whose tenant moved. */
  private async poll(): Promise<void> {
    for (const [tenantId, entry] of this.tenants) if (entry.waiters.size === 0) this.tenants.delete(tenantId);
    const tenantIds = [...this.tenants.keys()];
    try {
      const heads = tenantIds.length === 0 ? new Map<string, string>() : await this.heads(tenantIds);
      for (const tenantId of tenantIds) {
        const entry = this.tenants.get(tenantId);
        if (entry === undefined) continue;
        // A driver that cannot tell heads: every waiter looks again (the behaviour before heads existed).
        const head = heads === undefined ? undefined : (heads.get(tenantId) ?? null);
        entry.head = head;
        for (const waiter of [...entry.waiters]) if (head === undefined || waiter.basis === undefined || waiter.basis !== head) waiter.wake();
      }
    } catch {
      // A failed look (the database away for a moment) wakes everyone: each read reports its own error.
      for (const entry of this.tenants.values()) for (const waiter of [...entry.waiters]) waiter.wake();
    } finally {
      this.timer = undefined;
      if ([...this.tenants.values()].some((entry) => entry.waiters.size > 0)) this.schedule();
    }
  }

  /** Latest cursor per tenant, in batches; `undefined` when the driver cannot tell. */
  private async heads(tenantIds: readonly string[]): Promise<Map<string, string> | undefined> {
    const latest = this.storage.events.latestCursors?.bind(this.storage.events);
    if (latest === undefined) return undefined;
    const out = new Map<string, string>();
    for (let start = 0; start < tenantIds.length; start += EVENT_FEED_HEADS_BATCH) {
      for (const [tenantId, cursor] of await latest(tenantIds.slice(start, start + EVENT_FEED_HEADS_BATCH))) out.set(tenantId, cursor);
    }
    return out;
  }
}

const hubs = new WeakMap<StorageDriver, WaiterHub>();

/** The waiters of `storage` in this process. */
export function waitersOf(storage: StorageDriver): WaiterHub {
  let hub = hubs.get(storage);
  if (hub === undefined) {
    hub = new WaiterHub(storage);
    hubs.set(storage, hub);
  }
  return hub;
}

/** Called after a commit that appended events of `tenantId` to `storage`: wakes that tenant's waiters only. */
export function wakeReaders(storage: StorageDriver, tenantId: string): void {
  hubs.get(storage)?.wake(tenantId);
}
