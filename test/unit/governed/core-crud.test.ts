import { describe, expect, it } from 'vitest';
import { CellgateError } from 'cellgate';
import { Customer, Invoice, OTHER_WS, admin, cellCtx, customerInput, invoiceInput, setup, wsCtx, actor, OTHER_CELL, WS } from './core-fixtures.ts';

async function rejects(promise: Promise<unknown>): Promise<CellgateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CellgateError);
  return error as CellgateError;
}

describe('governed service: construction', () => {
  it('checks options and raw documents with configuration errors naming the path', async () => {
    const { createGovernedService } = await import('../../../src/governed/index.ts');
    const { memoryStorage } = await import('../../../src/storage/memory/index.ts');
    const { ConfigurationError } = await import('../../../src/errors.ts');
    expect(() => createGovernedService({ entity: Customer, storage: undefined as never })).toThrow(ConfigurationError);
    expect(() => createGovernedService({ entity: Customer, storage: memoryStorage(), tier: 'tier-9' as never })).toThrow('tier');
    const raw = { ...structuredClone(Customer), fields: { ...structuredClone(Customer.fields), amount: { type: 'money' } } };
    expect(() => createGovernedService({ entity: raw as never, storage: memoryStorage() })).toThrow('entity.fields.amount.type');
    const fromRaw = createGovernedService({ entity: structuredClone(Customer), storage: memoryStorage() });
    expect(fromRaw.resourceType).toBe('crm.Customer@v1');
    expect(fromRaw.resourceName).toBe('customers');
    expect(fromRaw.readPermission).toBe('crm.customers.read');
  });
});

describe('governed service: create and get', () => {
  it('creates version 1 with server-assigned fields and reads it back', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    expect(created.data).toMatchObject({
      ...customerInput,
      tenantId: admin.tenantId,
      workspaceId: WS,
      cellId: null,
      version: 1,
      deletedAt: null,
      phone: null,
      notes: null,
      createdBy: admin.id,
      updatedBy: admin.id,
    });
    expect(created.meta).toEqual({ version: 1, createdAt: created.data.createdAt, updatedAt: created.data.updatedAt, updatedBy: admin.id });
    expect(created.data.createdAt).toBe(new Date(created.data.createdAt).toISOString());
    expect(await service.get(wsCtx(), created.data.id)).toEqual(created);
  });

  it('refuses server-assigned, unknown and ill-typed fields with 400 naming each', async () => {
    const { service } = await setup();
    const error = await rejects(service.create(wsCtx(), { ...customerInput, id: 'x', version: 3, colour: 'red', status: 'gone', annualRevenue: 'lots' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    const paths = (error.details?.fields as { path: string }[]).map((f) => f.path).sort();
    expect(paths).toEqual(['annualRevenue', 'colour', 'id', 'status', 'version']);
    expect((await rejects(service.create(wsCtx(), { name: 'x' }))).details?.fields).toEqual(
      expect.arrayContaining([
        { path: 'email', message: 'Required' },
        { path: 'status', message: 'Required' },
      ]),
    );
  });

  it('refuses text no database can store (NUL, unpaired surrogates), at any depth', async () => {
    const { service } = await setup();
    for (const name of ['a\u0000b', 'x\uD800', '\uDC00y']) {
      expect((await rejects(service.create(wsCtx(), { ...customerInput, name }))).details?.fields).toEqual([
        { path: 'name', message: expect.stringContaining('NUL') },
      ]);
    }
    expect((await service.create(wsCtx(), { ...customerInput, name: 'emoji 😀 ok' })).data.name).toBe('emoji 😀 ok');
    const events = await setup((await import('./core-fixtures.ts')).ActivityEvent);
    const ctx = { actor: actor({ roles: ['admin'] }) };
    expect((await rejects(events.service.create(ctx, { kind: 'k', payload: { deep: ['ok', { 'k\u0000': 1 }] } }))).code).toBe('VALIDATION_ERROR');
    expect((await rejects(service.list(wsCtx(), { q: 'a\u0000' }))).code).toBe('VALIDATION_ERROR');
    expect((await rejects(service.create(wsCtx(), customerInput, { idempotencyKey: 'k\u0000' }))).code).toBe('VALIDATION_ERROR');
  });

  it('refuses arrays (bulk) and non-objects', async () => {
    const { service } = await setup();
    expect((await rejects(service.create(wsCtx(), [customerInput] as never))).code).toBe('VALIDATION_ERROR');
    expect((await rejects(service.create(wsCtx(), 'x' as never))).code).toBe('VALIDATION_ERROR');
  });

  it('normalises date-time values to ISO UTC', async () => {
    const { service } = await setup(Invoice);
    const created = await service.create(cellCtx(), { ...invoiceInput, dueDate: '2026-03-01T10:00:00+02:00' });
    expect(created.data.dueDate).toBe('2026-03-01T08:00:00.000Z');
  });

  it('hides records of other workspaces and cells (404) and non-UUID ids', async () => {
    const { service } = await setup(Invoice);
    const created = await service.create(cellCtx(), invoiceInput);
    const wide = actor({ workspaces: { [WS]: ['admin'], [OTHER_WS]: ['admin'] } });
    expect((await rejects(service.get(cellCtx(admin, OTHER_CELL), created.data.id))).code).toBe('NOT_FOUND');
    expect((await rejects(service.get({ actor: wide, scope: { workspaceId: OTHER_WS, cellId: created.data.cellId! } }, created.data.id))).code).toBe(
      'NOT_FOUND',
    );
    expect((await rejects(service.get(cellCtx(), 'not-a-uuid'))).code).toBe('NOT_FOUND');
    // UUIDs are matched case-insensitively (ids are stored lower-case).
    expect(
      (await service.get({ actor: admin, scope: { workspaceId: WS.toUpperCase(), cellId: created.data.cellId!.toUpperCase() } }, created.data.id.toUpperCase()))
        .data.id,
    ).toBe(created.data.id);
    expect((await rejects(service.get(cellCtx(actor({ tenantId: '22222222-2222-4222-8222-222222222222' })), created.data.id))).code).toBe('NOT_FOUND');
  });
});

describe('governed service: update', () => {
  it('merge PATCH bumps the version and keeps absent fields', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    const updated = await service.update(wsCtx(), created.data.id, { expectedVersion: 1, status: 'active' });
    expect(updated.data).toMatchObject({ name: 'Acme', status: 'active', version: 2 });
    expect(updated.meta.version).toBe(2);
  });

  it('requires expectedVersion (body, option or If-Match)', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    const error = await rejects(service.update(wsCtx(), created.data.id, { status: 'active' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details?.fields).toEqual([{ path: 'expectedVersion', message: expect.any(String) }]);
    expect((await service.update(wsCtx(), created.data.id, { status: 'active' }, { ifMatch: 1 })).meta.version).toBe(2);
  });

  it('stale expectedVersion → 409 with details; stale If-Match → 412', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    await service.update(wsCtx(), created.data.id, { expectedVersion: 1, status: 'active' });
    const conflict = await rejects(service.update(wsCtx(), created.data.id, { expectedVersion: 1, status: 'inactive' }));
    expect(conflict.code).toBe('CONFLICT');
    expect(conflict.status).toBe(409);
    expect(conflict.details).toEqual({ expectedVersion: 1, currentVersion: 2 });
    const precondition = await rejects(service.update(wsCtx(), created.data.id, { status: 'inactive' }, { ifMatch: 1 }));
    expect(precondition.code).toBe('PRECONDITION_FAILED');
    expect(precondition.details).toEqual({ expectedVersion: 1, currentVersion: 2 });
  });

  it('a no-op PATCH answers the unchanged version and writes no audit', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    const same = await service.update(wsCtx(), created.data.id, { expectedVersion: 1, status: 'lead', name: 'Acme' });
    expect(same).toEqual(created);
    const history = await service.history(wsCtx(), { resourceId: created.data.id });
    expect(history.data.map((a) => a.eventType)).toEqual(['entity.created']);
  });

  it('JSON Patch form: replace, add, remove, copy, move, test', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), { ...customerInput, phone: '+1 555' });
    const patched = await service.update(wsCtx(), created.data.id, {
      expectedVersion: 1,
      patch: [
        { op: 'test', path: '/status', value: 'lead' },
        { op: 'replace', path: '/status', value: 'active' },
        { op: 'add', path: '/annualRevenue', value: 1200 },
        { op: 'copy', from: '/name', path: '/notes' },
        { op: 'remove', path: '/phone' },
      ],
    });
    expect(patched.data).toMatchObject({ status: 'active', annualRevenue: 1200, notes: 'Acme', phone: null, version: 2 });
    const moved = await service.update(wsCtx(), created.data.id, { expectedVersion: 2, patch: [{ op: 'move', from: '/notes', path: '/phone' }] });
    expect(moved.data).toMatchObject({ phone: 'Acme', notes: null, version: 3 });
  });

  it('JSON Patch refuses server-assigned paths, prototype segments, failed tests and invalid results', async () => {
    const { service, storage } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    for (const path of ['/version', '/tenantId', '/id', '/__proto__', '/name/constructor', '/prototype', '', 'status']) {
      const error = await rejects(service.update(wsCtx(), created.data.id, { expectedVersion: 1, patch: [{ op: 'replace', path, value: 1 }] }));
      expect(error.status).toBe(400);
    }
    expect((await rejects(service.update(wsCtx(), created.data.id, { expectedVersion: 1, patch: [{ op: 'test', path: '/status', value: 'x' }] }))).status).toBe(
      400,
    );
    expect((await rejects(service.update(wsCtx(), created.data.id, { expectedVersion: 1, patch: [{ op: 'remove', path: '/name' }] }))).details?.fields).toEqual(
      [{ path: 'name', message: 'Required' }],
    );
    expect((await rejects(service.update(wsCtx(), created.data.id, { expectedVersion: 1, patch: [{ op: 'jump', path: '/name' }] }))).status).toBe(400);
    expect((await rejects(service.update(wsCtx(), created.data.id, { expectedVersion: 1, patch: [], name: 'x' }))).status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const state = await storage.get(service.model, { tenantId: admin.tenantId, workspaceId: WS, cellId: null }, created.data.id);
    expect(state?.version).toBe(1);
  });

  it('merge PATCH refuses server-assigned fields', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    const error = await rejects(service.update(wsCtx(), created.data.id, { expectedVersion: 1, updatedBy: 'me' }));
    expect(error.details?.fields).toEqual([{ path: 'updatedBy', message: 'updatedBy is server-assigned and cannot be set' }]);
  });
});

describe('governed service: concurrency', () => {
  it('50 parallel PATCHes with one expectedVersion: exactly one wins, audit contiguous', async () => {
    const { service, storage } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => service.update(wsCtx(), created.data.id, { expectedVersion: 1, name: `Name ${i}` })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(49);
    for (const r of lost) expect((r.reason as CellgateError).code).toBe('CONFLICT');
    const audit = await storage.listAudit({ tenantId: admin.tenantId, resourceType: service.resourceType, resourceId: created.data.id, limit: 100 });
    expect(audit.records.map((a) => a.resourceVersion)).toEqual([2, 1]);
    expect(audit.records.map((a) => a.baseVersion)).toEqual([1, null]);
  });

  it('chained parallel PATCHes each on a fresh version give contiguous versions without duplicates', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    let version = 1;
    for (let round = 0; round < 5; round += 1) {
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => service.update(wsCtx(), created.data.id, { expectedVersion: version, name: `R${round}-${i}` })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      version += 1;
    }
    const history = await service.history(wsCtx(), { resourceId: created.data.id, limit: 100 });
    expect(history.data.map((a) => a.resourceVersion)).toEqual([6, 5, 4, 3, 2, 1]);
  });
});

describe('governed service: mixed parallel writes', () => {
  it('every version has exactly one audit record and one stored state', async () => {
    const { service, storage } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    const scope = { tenantId: admin.tenantId, workspaceId: WS, cellId: null };
    for (let round = 0; round < 10; round += 1) {
      const current = await service.get(wsCtx(), created.data.id, { includeDeleted: true });
      const version = current.meta.version;
      const deleted = current.data.deletedAt !== null;
      await Promise.allSettled([
        service.update(wsCtx(), created.data.id, { expectedVersion: version, name: `R${round}` }),
        service.update(wsCtx(), created.data.id, {
          expectedVersion: version,
          patch: [{ op: 'replace', path: '/status', value: round % 2 ? 'active' : 'inactive' }],
        }),
        deleted || round % 3 !== 2 ? Promise.resolve() : service.delete(wsCtx(), created.data.id, { expectedVersion: version }),
        version > 1 ? service.rollback(wsCtx(), created.data.id, { targetVersion: 1, expectedVersion: version }) : Promise.resolve(),
      ]);
    }
    const final = (await service.get(wsCtx(), created.data.id, { includeDeleted: true })).meta.version;
    const audit = await storage.listAudit({ tenantId: admin.tenantId, resourceType: service.resourceType, resourceId: created.data.id, limit: 1000 });
    expect(audit.records.map((a) => a.resourceVersion)).toEqual(Array.from({ length: final }, (_, i) => final - i));
    for (const record of audit.records) {
      expect(record.baseVersion).toBe(record.resourceVersion === 1 ? null : record.resourceVersion - 1);
      expect((await storage.getVersionState(service.model, scope, created.data.id, record.resourceVersion))?.version).toBe(record.resourceVersion);
    }
  });
});

describe('governed service: delete and rollback', () => {
  it('soft delete makes version + 1, hides the record, and rollback restores it (entity.restored)', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    await service.update(wsCtx(), created.data.id, { expectedVersion: 1, status: 'active' });
    const deleted = await service.delete(wsCtx(), created.data.id, { expectedVersion: 2 });
    expect(deleted.data).toMatchObject({ version: 3, deletedBy: admin.id });
    expect(deleted.data.deletedAt).not.toBeNull();
    expect((await rejects(service.get(wsCtx(), created.data.id))).code).toBe('NOT_FOUND');
    expect((await service.get(wsCtx(), created.data.id, { includeDeleted: true })).data.version).toBe(3);
    expect((await service.list(wsCtx())).meta.total).toBe(0);
    expect((await service.list(wsCtx(), { includeDeleted: true })).meta.total).toBe(1);
    expect((await rejects(service.update(wsCtx(), created.data.id, { expectedVersion: 3, name: 'x' }))).code).toBe('NOT_FOUND');
    const restored = await service.rollback(wsCtx(), created.data.id, { targetVersion: 2, reason: 'deleted by mistake' });
    expect(restored.data).toMatchObject({ version: 4, status: 'active', deletedAt: null, deletedBy: null });
    const history = await service.history(wsCtx(), { resourceId: created.data.id });
    expect(history.data[0]).toMatchObject({ eventType: 'entity.restored', reason: 'deleted by mistake', resourceVersion: 4, baseVersion: 3 });
    expect(history.data.map((a) => a.eventType)).toEqual(['entity.restored', 'entity.deleted', 'entity.updated', 'entity.created']);
  });

  it('delete needs a version and checks it', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    expect((await rejects(service.delete(wsCtx(), created.data.id, {}))).code).toBe('VALIDATION_ERROR');
    expect((await rejects(service.delete(wsCtx(), created.data.id, { expectedVersion: 5 }))).code).toBe('CONFLICT');
    expect((await rejects(service.delete(wsCtx(), created.data.id, { ifMatch: 5 }))).code).toBe('PRECONDITION_FAILED');
  });

  it('rollback restores sensitive values exactly, as a new version', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), { ...customerInput, phone: '+1 555 0100', notes: 'secret note' });
    await service.update(wsCtx(), created.data.id, { expectedVersion: 1, email: 'new@acme.test', phone: null, notes: 'changed' });
    const rolled = await service.rollback(wsCtx(), created.data.id, { targetVersion: 1, expectedVersion: 2 });
    expect(rolled.data).toMatchObject({ email: 'billing@acme.test', phone: '+1 555 0100', notes: 'secret note', version: 3 });
    const history = await service.history(wsCtx(), { resourceId: created.data.id });
    expect(history.data[0]?.eventType).toBe('entity.rollback');
  });

  it('rollback target and version rules', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    await service.update(wsCtx(), created.data.id, { expectedVersion: 1, status: 'active' });
    for (const targetVersion of [2, 3, 0]) {
      const error = await rejects(service.rollback(wsCtx(), created.data.id, { targetVersion }));
      expect(error.code).toBe(targetVersion === 0 ? 'VALIDATION_ERROR' : 'INVALID_TARGET_VERSION');
    }
    expect((await rejects(service.rollback(wsCtx(), created.data.id, {} as never))).code).toBe('VALIDATION_ERROR');
    expect((await rejects(service.rollback(wsCtx(), created.data.id, { targetVersion: 1, expectedVersion: 1 }))).code).toBe('CONFLICT');
    expect((await rejects(service.rollback(wsCtx(), created.data.id, { targetVersion: 1, mode: 'rewrite' } as never))).code).toBe('VALIDATION_ERROR');
  });

  it('rollback by tier: tier-3 → 422 ROLLBACK_DISABLED, tier-2 unless rollback:false', async () => {
    const events = await setup(Customer, { tier: 'tier-3' });
    const record = await events.service.create(wsCtx(), customerInput);
    expect((await rejects(events.service.rollback(wsCtx(), record.data.id, { targetVersion: 1 }))).code).toBe('ROLLBACK_DISABLED');
    const tier2 = await setup(Invoice);
    const invoice = await tier2.service.create(cellCtx(), invoiceInput);
    await tier2.service.update(cellCtx(), invoice.data.id, { expectedVersion: 1, amount: 5 });
    expect((await tier2.service.rollback(cellCtx(), invoice.data.id, { targetVersion: 1 })).data.amount).toBe(100);
    const off = await setup(Invoice, { rollback: false });
    const other = await off.service.create(cellCtx(), invoiceInput);
    expect((await rejects(off.service.rollback(cellCtx(), other.data.id, { targetVersion: 1 }))).code).toBe('ROLLBACK_DISABLED');
  });
});
