import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from 'cellgate';
import { ActivityEvent, Customer, Invoice, OTHER_TENANT, actor, admin, cellCtx, customerInput, invoiceInput, setup, wsCtx, WS } from './core-fixtures.ts';

const SECRET_EMAIL = 'very.secret.person@example.test';
const SECRET_PHONE = '+44 7700 900123';
const SECRET_TOKEN = 'tok_live_SUPERSECRET_42';
const SECRET_NOTE = 'confidential note text';

describe('audit records', () => {
  it('carry every field of the audit record, in the same transaction as the write', async () => {
    const { service, storage } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    const [audit] = (await service.history(wsCtx(), { resourceId: created.data.id })).data;
    expect(audit).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: admin.tenantId,
      workspaceId: WS,
      cellId: null,
      actorId: admin.id,
      actorType: 'user',
      eventType: 'entity.created',
      resourceType: 'crm.Customer@v1',
      resourceId: created.data.id,
      resourceVersion: 1,
      baseVersion: null,
      occurredAt: created.data.createdAt,
      requestId: 'req-1',
      traceId: 'trace-1',
      ip: '127.0.0.1',
      userAgent: 'vitest',
      changeKind: 'diff',
      diff: expect.any(Array),
      snapshot: null,
      redactionApplied: true,
      tags: null,
      reason: null,
      changeSetId: null,
    });
    expect(await service.getAudit(wsCtx(), audit!.id)).toEqual(audit);
    expect(await storage.getAudit(admin.tenantId, audit!.id)).toEqual(audit);
  });

  it('diff is RFC 6902 from before to after with escaped pointers', async () => {
    const { service } = await setup(ActivityEvent);
    const ctx = { actor: actor({ roles: ['admin'] }) };
    const { service: tier2 } = await setup(ActivityEvent, { tier: 'tier-2' });
    const created = await tier2.create(ctx, { kind: 'login', payload: { 'a/b': 1, 'c~d': { x: 1 }, list: [1, 2] } });
    await tier2.update(ctx, created.data.id, { expectedVersion: 1, payload: { 'a/b': 2, 'c~d': { x: 1, y: 2 }, list: [1] } });
    const [update] = (await tier2.history(ctx, { resourceId: created.data.id })).data;
    expect(update!.diff).toEqual([
      { op: 'replace', path: '/payload/a~1b', value: 2 },
      { op: 'add', path: '/payload/c~0d/y', value: 2 },
      { op: 'replace', path: '/payload/list', value: [1] },
    ]);
    void service;
  });

  it('tier-3 keeps event, actor and versions only', async () => {
    const { service } = await setup(ActivityEvent);
    const ctx = { actor: actor({ roles: ['admin'] }) };
    const created = await service.create(ctx, { kind: 'login', payload: { ip: '10.0.0.1' } });
    const [audit] = (await service.history(ctx, { resourceId: created.data.id })).data;
    expect(audit).toMatchObject({
      eventType: 'entity.created',
      actorId: admin.id,
      resourceVersion: 1,
      workspaceId: null,
      diff: null,
      snapshot: null,
      redactionApplied: true,
    });
    expect(JSON.stringify(audit)).not.toContain('10.0.0.1');
    const versions = await service.versions(ctx, created.data.id);
    expect(versions.data).toEqual([{ version: 1, eventType: 'entity.created', occurredAt: created.data.createdAt, actorId: admin.id, snapshot: null }]);
  });
});

describe('redaction', () => {
  async function exercise(storeSnapshots: boolean) {
    const logs: unknown[] = [];
    const metrics = createMetricsRegistry();
    const customers = await setup(Customer, { audit: { storeSnapshots }, logger: (entry) => logs.push(entry), metrics });
    const c = await customers.service.create(wsCtx(), { ...customerInput, email: SECRET_EMAIL, phone: SECRET_PHONE, notes: SECRET_NOTE });
    await customers.service.update(wsCtx(), c.data.id, { expectedVersion: 1, email: `x${SECRET_EMAIL}`, phone: `${SECRET_PHONE}9`, notes: `${SECRET_NOTE}!` });
    await customers.service.rollback(wsCtx(), c.data.id, { targetVersion: 1 });
    const invoices = await setup(Invoice, { audit: { storeSnapshots }, logger: (entry) => logs.push(entry), metrics });
    const i = await invoices.service.create(cellCtx(), { ...invoiceInput, paymentToken: SECRET_TOKEN });
    await invoices.service.update(cellCtx(), i.data.id, { expectedVersion: 1, patch: [{ op: 'replace', path: '/paymentToken', value: `${SECRET_TOKEN}2` }] });
    await invoices.service.update(cellCtx(), i.data.id, { expectedVersion: 1, amount: 3 }).catch(() => undefined);
    const output = JSON.stringify([
      await customers.service.history(wsCtx(), { limit: 100 }),
      await customers.service.versions(wsCtx(), c.data.id, { limit: 100 }),
      await customers.storage.listAudit({ tenantId: admin.tenantId, limit: 100 }),
      await invoices.service.history(cellCtx(), { limit: 100 }),
      await invoices.service.versions(cellCtx(), i.data.id, { limit: 100 }),
      logs,
      metrics.render(),
    ]);
    return { output, customers, c };
  }

  for (const storeSnapshots of [false, true]) {
    it(`sensitive, credential and hashed values never appear in audit, versions, logs or metrics (storeSnapshots ${storeSnapshots})`, async () => {
      const { output, customers, c } = await exercise(storeSnapshots);
      for (const secret of [SECRET_EMAIL, SECRET_PHONE, SECRET_TOKEN, SECRET_NOTE, 'SUPERSECRET', 'very.secret']) expect(output).not.toContain(secret);
      expect(output).toContain('/email');
      expect(output).toContain('/paymentToken');
      expect(output).toContain('hmac-sha256:');
      // Rollback was still exact: the unredacted version store has the values.
      expect((await customers.service.get(wsCtx(), c.data.id)).data).toMatchObject({ email: SECRET_EMAIL, phone: SECRET_PHONE, notes: SECRET_NOTE });
    });
  }

  it('keeps path and op only for sensitive fields, a stable per-tenant hash for redact: hash', async () => {
    const { service } = await setup();
    const other = actor({ tenantId: OTHER_TENANT });
    const one = await service.create(wsCtx(), { ...customerInput, notes: SECRET_NOTE });
    const two = await service.create(wsCtx(), { ...customerInput, notes: SECRET_NOTE });
    const three = await service.create(wsCtx(other), { ...customerInput, notes: SECRET_NOTE });
    const diffOf = async (ctx: ReturnType<typeof wsCtx>, id: string) =>
      (await service.history(ctx, { resourceId: id })).data[0]!.diff as { op: string; path: string; value?: unknown; valueHash?: string }[];
    const first = await diffOf(wsCtx(), one.data.id);
    expect(first.find((op) => op.path === '/email')).toEqual({ op: 'add', path: '/email' });
    expect(first.find((op) => op.path === '/name')).toEqual({ op: 'add', path: '/name', value: 'Acme' });
    const hash = first.find((op) => op.path === '/notes')!.valueHash;
    expect(hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect((await diffOf(wsCtx(), two.data.id)).find((op) => op.path === '/notes')!.valueHash).toBe(hash);
    expect((await diffOf(wsCtx(other), three.data.id)).find((op) => op.path === '/notes')!.valueHash).not.toBe(hash);
  });

  it('redact: length keeps the length', async () => {
    const LengthCustomer = { ...Customer, fields: { ...Customer.fields, notes: { ...Customer.fields.notes!, redact: 'length' as const } } };
    const { service } = await setup(LengthCustomer);
    const created = await service.create(wsCtx(), { ...customerInput, notes: 'twelve chars' });
    const diff = (await service.history(wsCtx(), { resourceId: created.data.id })).data[0]!.diff as { path: string }[];
    expect(diff.find((op) => op.path === '/notes')).toEqual({ op: 'add', path: '/notes', valueLength: 12 });
  });

  it('per-tenant switches: storeDiffValues false keeps path and op only; storeSnapshots per tenant', async () => {
    const { service } = await setup(Customer, {
      audit: { storeDiffValues: (tenant) => tenant !== OTHER_TENANT, storeSnapshots: (tenant) => tenant === OTHER_TENANT },
    });
    const other = actor({ tenantId: OTHER_TENANT });
    const a = await service.create(wsCtx(), customerInput);
    const b = await service.create(wsCtx(other), customerInput);
    const auditA = (await service.history(wsCtx(), { resourceId: a.data.id })).data[0]!;
    const auditB = (await service.history(wsCtx(other), { resourceId: b.data.id })).data[0]!;
    expect(auditA.snapshot).toBeNull();
    expect(auditA.diff).toContainEqual({ op: 'add', path: '/name', value: 'Acme' });
    expect(auditB.diff).toContainEqual({ op: 'add', path: '/name' });
    expect(auditB.snapshot).toMatchObject({ name: 'Acme', email: '[REDACTED]', id: b.data.id, version: 1 });
  });

  it('versions answer redacted snapshots newest first', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), { ...customerInput, email: SECRET_EMAIL });
    await service.update(wsCtx(), created.data.id, { expectedVersion: 1, name: 'Beta' });
    const versions = await service.versions(wsCtx(), created.data.id);
    expect(versions.data.map((v) => [v.version, v.eventType, v.snapshot?.name, v.snapshot?.email])).toEqual([
      [2, 'entity.updated', 'Beta', '[REDACTED]'],
      [1, 'entity.created', 'Acme', '[REDACTED]'],
    ]);
    expect(versions.meta).toEqual({ limit: 20, nextCursor: null });
  });
});

describe('metrics and logs', () => {
  it('counts writes, conflicts, rollbacks and audit latency, and logs each write without values', async () => {
    const metrics = createMetricsRegistry();
    const { service, logs } = await setup(Customer, { metrics });
    const created = await service.create(wsCtx(), customerInput);
    await service.update(wsCtx(), created.data.id, { expectedVersion: 1, name: 'B' });
    await service.update(wsCtx(), created.data.id, { expectedVersion: 1, name: 'C' }).catch(() => undefined);
    await service.rollback(wsCtx(), created.data.id, { targetVersion: 1 });
    const text = metrics.render();
    expect(text).toContain('entity_write_total{eventType="entity.created",resourceType="crm.Customer@v1"} 1');
    expect(text).toContain('entity_write_total{eventType="entity.updated",resourceType="crm.Customer@v1"} 1');
    expect(text).toContain('entity_conflict_total{resourceType="crm.Customer@v1"} 1');
    expect(text).toContain('rollback_total{resourceType="crm.Customer@v1"} 1');
    expect(text).toContain('# TYPE audit_write_latency_ms histogram');
    expect(text).toContain('audit_write_latency_ms_count 3');
    expect(logs).toContainEqual({
      level: 'info',
      event: 'entity.updated',
      tenantId: admin.tenantId,
      workspaceId: WS,
      cellId: null,
      resourceType: 'crm.Customer@v1',
      resourceId: created.data.id,
      version: 2,
      actorId: admin.id,
      requestId: 'req-1',
      traceId: 'trace-1',
    });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', event: 'entity.conflict', version: 2 }));
  });
});
