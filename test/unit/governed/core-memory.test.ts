import { describe, expect, it } from 'vitest';
import { CellgateError, toStorageModel, memoryStorage, type AuditRecord, type StoredRecord } from 'cellgate';
import { Customer, TENANT, WS, actor, customerInput, setup, wsCtx } from './core-fixtures.ts';

const model = toStorageModel(Customer);
const scope = { tenantId: TENANT, workspaceId: WS, cellId: null };
const record = (id: string, version = 1): StoredRecord => ({
  id,
  ...scope,
  version,
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'u',
  updatedAt: '2026-01-01T00:00:00.000Z',
  updatedBy: 'u',
  deletedAt: null,
  deletedBy: null,
  fields: { name: 'A', tags: ['x'] },
});
const audit = (n: number, resourceId = 'r1'): AuditRecord => ({
  id: `a${n}`,
  ...scope,
  actorId: 'u',
  actorType: 'user',
  eventType: 'entity.updated',
  resourceType: model.resourceType,
  resourceId,
  resourceVersion: n,
  baseVersion: n - 1,
  occurredAt: '2026-01-01T00:00:00.000Z',
  requestId: null,
  traceId: null,
  ip: null,
  userAgent: null,
  changeKind: 'diff',
  diff: [],
  snapshot: null,
  redactionApplied: false,
  tags: null,
  reason: null,
});

describe('memoryStorage', () => {
  it('declares its capabilities', () => {
    expect(memoryStorage().capabilities).toEqual({ durable: false, multiProcess: false, appendOnlyAuditEnforced: true });
    expect(memoryStorage().name).toBe('memory');
  });

  it('a throwing transaction leaves no trace', async () => {
    const storage = memoryStorage();
    await storage.insert(model, record('r0'));
    const failure = storage.transaction(async (session) => {
      await session.insert(model, record('r1'));
      await session.update(model, { ...record('r0', 2), fields: { name: 'changed' } }, 1);
      await session.appendAudit(audit(1));
      await session.putVersionState(model, record('r1'));
      await session.putIdempotency({ tenantId: TENANT, actorId: 'u', key: 'k', requestHash: 'h', status: 201, body: '{}', createdAt: 'now' });
      expect(await session.get(model, scope, 'r1')).not.toBeNull();
      throw new Error('boom');
    });
    await expect(failure).rejects.toThrow('boom');
    expect(await storage.get(model, scope, 'r1')).toBeNull();
    expect((await storage.get(model, scope, 'r0'))?.fields).toEqual({ name: 'A', tags: ['x'] });
    expect((await storage.listAudit({ tenantId: TENANT, limit: 10 })).records).toEqual([]);
    expect(await storage.getVersionState(model, scope, 'r1', 1)).toBeNull();
    expect(await storage.getIdempotency(TENANT, 'u', 'k')).toBeNull();
  });

  it('readers outside a transaction never see uncommitted writes', async () => {
    const storage = memoryStorage();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const tx = storage.transaction(async (session) => {
      await session.insert(model, record('r1'));
      inside();
      await gate;
    });
    await started;
    expect(await storage.get(model, scope, 'r1')).toBeNull();
    release();
    await tx;
    expect(await storage.get(model, scope, 'r1')).not.toBeNull();
  });

  it('conditional update returns null on a version miss or another scope', async () => {
    const storage = memoryStorage();
    await storage.insert(model, record('r1'));
    expect(await storage.update(model, record('r1', 2), 5)).toBeNull();
    expect(await storage.update(model, { ...record('r1', 2), workspaceId: 'other' }, 1)).toBeNull();
    expect((await storage.update(model, record('r1', 2), 1))?.version).toBe(2);
    expect(await storage.get(model, { ...scope, workspaceId: 'other' }, 'r1')).toBeNull();
  });

  it('deep-copies values in and out', async () => {
    const storage = memoryStorage();
    const input = record('r1');
    await storage.insert(model, input);
    (input.fields.tags as string[]).push('mutated');
    const out = (await storage.get(model, scope, 'r1'))!;
    (out.fields.tags as string[]).push('again');
    expect((await storage.get(model, scope, 'r1'))?.fields.tags).toEqual(['x']);
  });

  it('audit pages newest first with opaque cursors; a malformed cursor is 400', async () => {
    const storage = memoryStorage();
    for (let n = 1; n <= 7; n += 1) await storage.appendAudit(audit(n, n % 2 === 0 ? 'even' : 'odd'));
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await storage.listAudit({ tenantId: TENANT, limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      ids.push(...page.records.map((r) => r.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(ids).toEqual(['a7', 'a6', 'a5', 'a4', 'a3', 'a2', 'a1']);
    const first = await storage.listAudit({ tenantId: TENANT, resourceType: model.resourceType, resourceId: 'odd', limit: 2 });
    expect(first.records.map((r) => r.id)).toEqual(['a7', 'a5']);
    const second = await storage.listAudit({ tenantId: TENANT, resourceType: model.resourceType, resourceId: 'odd', limit: 2, cursor: first.nextCursor! });
    expect(second).toMatchObject({ records: [expect.objectContaining({ id: 'a3' }), expect.objectContaining({ id: 'a1' })], nextCursor: null });
    // A cursor per record, so a reader that stops mid-page (history pages bounded by size) resumes after the last one it served.
    expect(second.cursors).toHaveLength(2);
    expect((await storage.listAudit({ tenantId: 'other', limit: 10 })).records).toEqual([]);
    const bad = await storage.listAudit({ tenantId: TENANT, limit: 2, cursor: 'garbage' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(CellgateError);
    expect((bad as CellgateError).status).toBe(400);
  });

  it('idempotency keys are put-if-absent', async () => {
    const storage = memoryStorage();
    const entry = { tenantId: TENANT, actorId: 'u', key: 'k', requestHash: 'h', status: 201, body: '{}', createdAt: 'now' };
    expect(await storage.putIdempotency(entry)).toBe(true);
    expect(await storage.putIdempotency({ ...entry, requestHash: 'other' })).toBe(false);
    expect((await storage.getIdempotency(TENANT, 'u', 'k'))?.requestHash).toBe('h');
  });
});

describe('idempotency (docs/decisions/B16.md)', () => {
  it('replays the first answer for the same key and body, 422 for another body, keyed per actor', async () => {
    const { service } = await setup();
    const first = await service.create(wsCtx(), customerInput, { idempotencyKey: 'key-1' });
    const again = await service.create(wsCtx(), { status: 'lead', email: customerInput.email, name: 'Acme' }, { idempotencyKey: 'key-1' });
    expect(again).toEqual(first);
    expect((await service.list(wsCtx())).meta.total).toBe(1);
    const reused = await service.create(wsCtx(), { ...customerInput, name: 'Other' }, { idempotencyKey: 'key-1' }).catch((e: CellgateError) => e);
    expect(reused).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
    const otherActor = actor({ id: '88888888-8888-4888-8888-888888888888' });
    expect((await service.create(wsCtx(otherActor), customerInput, { idempotencyKey: 'key-1' })).data.id).not.toBe(first.data.id);
  });

  it('parallel repeats of one key create one record', async () => {
    const { service } = await setup();
    const results = await Promise.all(Array.from({ length: 10 }, () => service.create(wsCtx(), customerInput, { idempotencyKey: 'same' })));
    expect(new Set(results.map((r) => r.data.id)).size).toBe(1);
    expect((await service.list(wsCtx())).meta.total).toBe(1);
    expect((await service.history(wsCtx(), {})).data).toHaveLength(1);
  });
});

describe('history pagination (docs/decisions/B08.md)', () => {
  it('walks a long history with cursors, newest first, without gaps or repeats', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    for (let version = 1; version < 25; version += 1) await service.update(wsCtx(), created.data.id, { expectedVersion: version, name: `N${version}` });
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await service.history(wsCtx(), { resourceId: created.data.id, limit: 7, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.meta.limit).toBe(7);
      seen.push(...page.data.map((a) => a.resourceVersion));
      cursor = page.meta.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => 25 - i));
    const versions = await service.versions(wsCtx(), created.data.id, { limit: 10 });
    expect(versions.data.map((v) => v.version)).toEqual(Array.from({ length: 10 }, (_, i) => 25 - i));
    const next = await service.versions(wsCtx(), created.data.id, { limit: 10, cursor: versions.meta.nextCursor! });
    expect(next.data[0]?.version).toBe(15);
    expect((await service.history(wsCtx(), { limit: 500 })).meta.limit).toBe(100);
  });
});
