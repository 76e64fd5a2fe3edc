/**
 * The memory driver's outbox: committed events in commit order (a transaction's staged events get
 * their `seq` when it commits, under the driver's transaction mutex, so `seq` order is commit
 * order) and the webhook delivery state. Every method is synchronous inside, so a claim is atomic
 * against any other caller of this process.
 */
import { decodeEventCursor, encodeEventCursor } from '../event-cursor.ts';
import { withinOptionalReach } from '../history-reach.ts';
import { lowerBound } from './lower-bound.ts';
import type {
  ClaimedDelivery,
  DeliveryCounts,
  DeliveryOutcome,
  DomainEvent,
  EventDelivery,
  EventQuery,
  EventStore,
  RecordEventQuery,
  StoredEvent,
} from '../types.ts';

interface Lease {
  owner: string;
  until: string;
}

const deliveryKey = (subscriptionId: string, eventId: string): string => `${subscriptionId}\u0000${eventId}`;

const typeKey = (tenantId: string, resourceType: string): string => `${tenantId}\u0000${resourceType}`;

/** The list of positions under `key`, created empty when absent. */
function indexed(map: Map<string, number[]>, key: string): number[] {
  let list = map.get(key);
  if (list === undefined) {
    list = [];
    map.set(key, list);
  }
  return list;
}

/** Committed events and deliveries of one memory driver. */
export class MemoryEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  /** Characters of JSON of each event in `events` (same index): a page stops by size without serialising. */
  private readonly lengths: number[] = [];
  /** Position of each event in `events` among its tenant's events (same index): what its cursor names. */
  private readonly tenantPositions: number[] = [];
  private readonly seqById = new Map<string, number>();
  /** Positions in `events` per tenant, and per tenant and resource type, ascending: the feed reads without a scan. */
  private readonly byTenant = new Map<string, number[]>();
  private readonly byTenantType = new Map<string, number[]>();
  /** Position in `events` of the first event not fanned out yet (fan-out goes in order). */
  private fanned = 0;
  private readonly deliveries = new Map<string, EventDelivery>();
  private readonly leases = new Map<string, Lease>();

  /** Makes a committed transaction's events visible, in order. */
  commit(staged: readonly DomainEvent[]): void {
    for (const event of staged) {
      const seq = this.events.length + 1;
      const ofTenant = indexed(this.byTenant, event.tenantId);
      ofTenant.push(seq - 1);
      // The cursor is the event's position among its tenant's events (src/storage/event-cursor.ts).
      this.tenantPositions[seq - 1] = ofTenant.length;
      this.store(seq - 1, { ...structuredClone(event), cursor: encodeEventCursor(ofTenant.length) });
      this.seqById.set(event.id, seq);
      indexed(this.byTenantType, typeKey(event.tenantId, event.resourceType)).push(seq - 1);
    }
  }

  private store(index: number, event: StoredEvent): void {
    this.events[index] = event;
    this.lengths[index] = JSON.stringify(event).length;
  }

  /**
   * Index in `events` after which the tenant's events past `after` start: the index of the
   * tenant's event at that position (or of its last event, when `after` names a position not
   * reached yet), -1 from the first. Positions never move: retention leaves holes.
   */
  private startAfter(tenantId: string, after: string | undefined): { index: number; position: number } {
    if (after === undefined) return { index: -1, position: 0 };
    const position = Number(decodeEventCursor(after));
    const ofTenant = this.byTenant.get(tenantId) ?? [];
    return { index: ofTenant[Math.min(position, ofTenant.length) - 1] ?? -1, position };
  }

  /** Committed events of one record after a cursor, in commit order (erasure reads them in batches). */
  recordEvents(query: RecordEventQuery): StoredEvent[] {
    const start = this.startAfter(query.tenantId, query.after);
    const out: StoredEvent[] = [];
    for (let index = start.index + 1; index < this.events.length && out.length < query.limit; index += 1) {
      const event = this.events[index];
      // A hole is an event retention removed (positions stay, so cursors keep their meaning).
      if (event !== undefined && event.tenantId === query.tenantId && event.resourceType === query.resourceType && event.resourceId === query.resourceId)
        out.push(structuredClone(event));
    }
    return out;
  }

  /** Replaces the body of a committed event (erasure); its position and deliveries stay. */
  replace(event: DomainEvent): void {
    const seq = this.seqById.get(event.id);
    if (seq === undefined || this.events[seq - 1]?.tenantId !== event.tenantId) return;
    const { cursor: _cursor, ...body } = event as StoredEvent;
    this.store(seq - 1, { ...structuredClone(body), cursor: this.events[seq - 1]!.cursor });
  }

  async listEvents(query: EventQuery): Promise<StoredEvent[]> {
    const start = this.startAfter(query.tenantId, query.after);
    // Only the tenant's events (of the resource type, when named), from the cursor on: binary search, no scan of history.
    const positions =
      (query.resourceType === undefined ? this.byTenant.get(query.tenantId) : this.byTenantType.get(typeKey(query.tenantId, query.resourceType))) ?? [];
    const out: StoredEvent[] = [];
    let length = 0;
    for (let at = lowerBound(positions, (position) => position <= start.index); at < positions.length && out.length < query.limit; at += 1) {
      const event = this.events[positions[at]!];
      if (event === undefined) continue;
      // A cursor past the tenant's last event: only events beyond that position follow it.
      if (this.tenantPositions[positions[at]!]! <= start.position) continue;
      if (query.workspaceId !== undefined && event.workspaceId !== query.workspaceId) continue;
      if (query.workspaceIds !== undefined && (event.workspaceId === null || !query.workspaceIds.includes(event.workspaceId))) continue;
      if (!withinOptionalReach(query.reach, event.resourceType, event.workspaceId)) continue;
      length += this.lengths[positions[at]!]! + 1;
      if (query.maxLength !== undefined && length > query.maxLength && out.length > 0) break;
      out.push(structuredClone(event));
    }
    return out;
  }

  async latestCursors(tenantIds: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const tenantId of tenantIds) {
      const count = this.byTenant.get(tenantId)?.length ?? 0;
      if (count > 0) out.set(tenantId, encodeEventCursor(count));
    }
    return out;
  }

  async fanOut(limit: number, route: (event: StoredEvent) => readonly string[], now: string): Promise<number> {
    const end = Math.min(this.events.length, this.fanned + limit);
    const taken = end - this.fanned;
    for (; this.fanned < end; this.fanned += 1) {
      const event = this.events[this.fanned];
      // A hole: retention removed an event that was never fanned out.
      if (event === undefined) continue;
      for (const subscriptionId of route(event)) {
        const key = deliveryKey(subscriptionId, event.id);
        if (this.deliveries.has(key)) continue;
        this.deliveries.set(key, {
          subscriptionId,
          eventId: event.id,
          tenantId: event.tenantId,
          state: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          lastStatus: null,
          lastError: null,
          updatedAt: now,
        });
      }
    }
    return taken;
  }

  async claimDeliveries(options: { now: string; limit: number; owner: string; leaseUntil: string }): Promise<ClaimedDelivery[]> {
    const due = [...this.deliveries.entries()]
      .filter(
        ([key, delivery]) =>
          delivery.state === 'pending' && delivery.nextAttemptAt !== null && delivery.nextAttemptAt <= options.now && !this.leased(key, options.now),
      )
      .sort(([, a], [, b]) =>
        a.nextAttemptAt! < b.nextAttemptAt! ? -1 : a.nextAttemptAt! > b.nextAttemptAt! ? 1 : this.seqById.get(a.eventId)! - this.seqById.get(b.eventId)!,
      )
      .slice(0, options.limit);
    return due.map(([key, delivery]) => {
      this.leases.set(key, { owner: options.owner, until: options.leaseUntil });
      return { delivery: { ...delivery }, event: structuredClone(this.events[this.seqById.get(delivery.eventId)! - 1]!) };
    });
  }

  private leased(key: string, now: string): boolean {
    const lease = this.leases.get(key);
    return lease !== undefined && lease.until > now;
  }

  async settleDelivery(owner: string, outcome: DeliveryOutcome): Promise<boolean> {
    const key = deliveryKey(outcome.subscriptionId, outcome.eventId);
    const delivery = this.deliveries.get(key);
    if (delivery === undefined || this.leases.get(key)?.owner !== owner || delivery.state !== 'pending') return false;
    this.leases.delete(key);
    this.deliveries.set(key, {
      ...delivery,
      state: outcome.state,
      attempts: outcome.attempts,
      nextAttemptAt: outcome.nextAttemptAt,
      lastStatus: outcome.lastStatus,
      lastError: outcome.lastError,
      updatedAt: outcome.at,
    });
    return true;
  }

  async deliveryCounts(subscriptionId?: string): Promise<DeliveryCounts> {
    const counts: DeliveryCounts = { pending: 0, delivered: 0, dead: 0 };
    for (const delivery of this.deliveries.values())
      if (subscriptionId === undefined || delivery.subscriptionId === subscriptionId) counts[delivery.state] += 1;
    return counts;
  }

  async listDeliveries(eventId: string): Promise<EventDelivery[]> {
    return [...this.deliveries.values()].filter((delivery) => delivery.eventId === eventId).map((delivery) => ({ ...delivery }));
  }

  /**
   * Retention: which events of a tenant an outbox trim may remove (walking at most `limit` events
   * after `after`, stopping at the first that occurred at or after `before`): fanned out, with
   * every delivery delivered. Removes nothing; {@link remove} does, on commit.
   */
  trimmable(tenantId: string, before: string, limit: number, after: string | null): { ids: string[]; deliveries: number; next: string | null } {
    const ids: string[] = [];
    let deliveries = 0;
    let walked = 0;
    // Only the tenant's positions, from the cursor on: no walk over other tenants.
    const positions = this.byTenant.get(tenantId) ?? [];
    let at = after === null ? 0 : Math.min(Number(decodeEventCursor(after)), positions.length);
    for (; at < positions.length && walked < limit; at += 1) {
      const index = positions[at]!;
      const event = this.events[index];
      if (event === undefined) continue;
      if (event.occurredAt >= before) return { ids, deliveries, next: null };
      walked += 1;
      const own = [...this.deliveries.values()].filter((delivery) => delivery.eventId === event.id);
      if (own.some((delivery) => delivery.state !== 'delivered')) continue;
      ids.push(event.id);
      deliveries += own.length;
    }
    // `at` is the index of the next event to walk, so `at` is the tenant position of the last one walked.
    return { ids, deliveries, next: walked === limit && at < positions.length ? encodeEventCursor(at) : null };
  }

  /** Removes events (leaving holes, so positions and cursors stay) and all their deliveries. */
  remove(ids: readonly string[]): void {
    const gone = new Set(ids);
    for (const [key, delivery] of this.deliveries) if (gone.has(delivery.eventId)) this.deliveries.delete(key);
    for (const id of ids) {
      const seq = this.seqById.get(id);
      if (seq !== undefined) {
        delete this.events[seq - 1];
        delete this.lengths[seq - 1];
      }
      this.seqById.delete(id);
    }
  }
}
