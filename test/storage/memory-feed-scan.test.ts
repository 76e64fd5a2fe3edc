/**
 * The memory driver's change feed reads only the asked tenant's events (of the asked resource
 * type), found by binary search from the cursor: a regression test for the scan from the start of
 * the whole history that every `listEvents` call used to make. It counts the events the store
 * looks at (no timing), so it fails on the scanning version whatever the machine.
 */
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/storage/memory/index.ts';
import type { DomainEvent, StorageDriver } from '../../src/storage/types.ts';

function event(tenantId: string, resourceType: string): DomainEvent {
  return {
    id: crypto.randomUUID(),
    type: 'entity.created',
    resourceType,
    resourceId: crypto.randomUUID(),
    tenantId,
    workspaceId: null,
    cellId: null,
    version: 1,
    baseVersion: null,
    occurredAt: new Date().toISOString(),
    actor: { id: 'u', type: 'user' },
    requestId: null,
    traceId: null,
    auditId: crypto.randomUUID(),
    change: { kind: 'snapshot', diff: null, snapshot: {}, redactionApplied: false },
  };
}

/** Counts reads of the store's committed event list by position. */
function countReads(storage: StorageDriver): () => number {
  const store = storage.events as unknown as { events: unknown[] };
  let reads = 0;
  store.events = new Proxy(store.events, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  return () => reads;
}

describe('memory driver change feed', () => {
  it('reads O(page) events per call, not the whole history, with or without a resource type', async () => {
    const storage = memoryStorage();
    const busy = crypto.randomUUID();
    const quiet = crypto.randomUUID();
    await storage.transaction(async (session) => {
      await session.appendEvent(event(quiet, 'a.Thing@v1'));
      for (let index = 0; index < 20_000; index += 1) await session.appendEvent(event(busy, index % 2 === 0 ? 'a.Thing@v1' : 'a.Other@v1'));
      await session.appendEvent(event(quiet, 'a.Other@v1'));
    });
    const reads = countReads(storage);
    const first = await storage.events.listEvents({ tenantId: quiet, limit: 10 });
    expect(first.map((stored) => stored.resourceType)).toEqual(['a.Thing@v1', 'a.Other@v1']);
    const rest = await storage.events.listEvents({ tenantId: quiet, after: first[0]!.cursor, limit: 10 });
    expect(rest.map((stored) => stored.resourceType)).toEqual(['a.Other@v1']);
    const typed = await storage.events.listEvents({ tenantId: quiet, resourceType: 'a.Other@v1', limit: 10 });
    expect(typed).toHaveLength(1);
    const page = await storage.events.listEvents({ tenantId: busy, resourceType: 'a.Other@v1', after: first[0]!.cursor, limit: 50 });
    expect(page).toHaveLength(50);
    expect(page.every((stored) => stored.resourceType === 'a.Other@v1')).toBe(true);
    // 2 + 1 + 1 + 50 events returned; the scanning version read about 20,000 per call.
    expect(reads()).toBeLessThan(200);
  });
});
