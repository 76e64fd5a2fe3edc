/**
 * The HTTP behaviour of governed resources (issue 6, docs/governed-conventions.md Area B, docs/decisions/B02.md–docs/decisions/B18.md) as one
 * suite over a storage factory, so every driver runs the same checks:
 *
 *   describeGovernedBehaviour('memory', () => memoryStorage());
 *
 * Each test builds a fresh API on fresh storage with the three demo entities of examples/entities.
 */
import { CellgateError, createGovernedApi, createMetricsRegistry, type GovernedApiOptions, type StorageDriver } from 'cellgate';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { cast, customer, demoEntity, expectError, ids, invoice, mint, paths, send, serve, SECRET, type Answer } from './support.ts';

/** Creates fresh, empty storage (a new database or schema for SQL drivers). */
export type StorageFactory = () => StorageDriver | Promise<StorageDriver>;

/** Builds an API over fresh storage; `overrides` replace options of the default setup. */
export async function governedSetup(createStorage: StorageFactory, overrides: Partial<GovernedApiOptions> = {}) {
  const storage = await createStorage();
  const metrics = createMetricsRegistry();
  const logs: unknown[] = [];
  const errors: unknown[] = [];
  const api = createGovernedApi({
    storage,
    auth: { secret: SECRET },
    metrics,
    logger: (entry) => logs.push(entry),
    onError: (error) => errors.push(error),
    trustProxy: true,
    resources: [demoEntity('customer'), demoEntity('invoice'), demoEntity('activity-event')] as never[],
    ...overrides,
  });
  await api.migrate();
  return { api, storage, metrics, logs, errors, tokens: await cast() };
}

type Setup = Awaited<ReturnType<typeof governedSetup>>;

async function createCustomer(s: Setup, body: Record<string, unknown> = customer(), token = s.tokens.admin): Promise<Answer> {
  const answer = await send(s.api, 'POST', paths.customers(), { token, body });
  expect(answer.status, answer.text).toBe(201);
  return answer;
}

const auditOf = (s: Setup, resourceId: string) => send(s.api, 'GET', `/v1/audit?resourceId=${resourceId}&limit=100`, { token: s.tokens.admin });

/** Registers the whole behaviour suite for one driver. */
export function describeGovernedBehaviour(driver: string, createStorage: StorageFactory): void {
  const setup = (overrides?: Partial<GovernedApiOptions>) => governedSetup(createStorage, overrides);

  describe(`governed HTTP behaviour (${driver})`, () => {
    describe('paths, shapes and methods', () => {
      it('mounts each resource by scope under /v1 and falls through elsewhere', async () => {
        const s = await setup();
        expect((await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin })).status).toBe(200);
        expect((await send(s.api, 'GET', paths.invoices(), { token: s.tokens.admin })).status).toBe(200);
        expect((await send(s.api, 'GET', paths.events(), { token: s.tokens.admin })).status).toBe(200);
        // Wrong scope shapes are not routes of these resources.
        expect(await s.api.match(new Request(`http://x/v1/customers`))).toBeUndefined();
        expect(await s.api.match(new Request(`http://x/v1/workspaces/${ids.ws}/invoices`))).toBeUndefined();
        expect(await s.api.match(new Request(`http://x/health`))).toBeUndefined();
      });

      it('creates with 201, Location, ETag and camelCase {data, meta}', async () => {
        const s = await setup();
        const created = await send(s.api, 'POST', paths.invoices(), { token: s.tokens.admin, body: invoice() });
        expect(created.status).toBe(201);
        const { data, meta } = created.body;
        expect(data).toMatchObject({
          invoiceNumber: 'INV-001',
          customerName: 'Acme Corp',
          amount: 120,
          tenantId: ids.tenant,
          workspaceId: ids.ws,
          cellId: ids.cell,
          version: 1,
          deletedAt: null,
        });
        expect(Object.keys(data).some((key) => key.includes('_'))).toBe(false);
        expect(meta).toEqual({ version: 1, createdAt: data.createdAt, updatedAt: data.updatedAt, updatedBy: ids.admin });
        expect(created.headers.get('etag')).toBe('"1"');
        expect(created.headers.get('location')).toBe(`${paths.invoices()}/${data.id}`);
        const fetched = await send(s.api, 'GET', created.headers.get('location')!, { token: s.tokens.admin });
        expect(fetched.status).toBe(200);
        expect(fetched.body.data).toEqual(data);
        expect(fetched.headers.get('etag')).toBe('"1"');
      });

      it('answers collections as {data, meta: {total, page, pageSize}}', async () => {
        const s = await setup();
        await createCustomer(s);
        const list = await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin });
        expect(list.body.meta).toEqual({ total: 1, page: 1, pageSize: 20 });
        expect(list.body.data).toHaveLength(1);
      });

      it('refuses server-assigned fields in a create body', async () => {
        const s = await setup();
        for (const field of ['id', 'version', 'createdAt', 'updatedAt', 'deletedAt', 'tenantId']) {
          const answer = await send(s.api, 'POST', paths.customers(), {
            token: s.tokens.admin,
            body: customer({ [field]: field === 'version' ? 1 : ids.viewer }),
          });
          expectError(answer, 400, 'VALIDATION_ERROR');
        }
        expect((await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin })).body.meta.total).toBe(0);
      });

      it('refuses PUT with 405 and Allow, and bulk (array) bodies with 400', async () => {
        const s = await setup();
        const { body } = await createCustomer(s);
        const put = await send(s.api, 'PUT', `${paths.customers()}/${body.data.id}`, { token: s.tokens.admin, body: customer() });
        expectError(put, 405, 'METHOD_NOT_ALLOWED');
        expect(put.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE');
        const putCollection = await send(s.api, 'PUT', paths.customers(), { token: s.tokens.admin, body: customer() });
        expect(putCollection.headers.get('allow')).toBe('GET, HEAD, POST');
        const bulk = await send(s.api, 'POST', paths.customers(), { token: s.tokens.admin, body: [customer(), customer()] });
        expectError(bulk, 400, 'VALIDATION_ERROR');
      });

      it('answers 415 for non-JSON, 413 for oversized, 400 for malformed bodies', async () => {
        const s = await setup({ bodyLimit: 1024 });
        const token = s.tokens.admin;
        expectError(
          await send(s.api, 'POST', paths.customers(), { token, raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
        expectError(await send(s.api, 'POST', paths.customers(), { token, body: customer({ notes: 'x'.repeat(2000) }) }), 413, 'PAYLOAD_TOO_LARGE');
        expectError(
          await send(s.api, 'POST', paths.customers(), { token, raw: '{"name":', headers: { 'content-type': 'application/json' } }),
          400,
          'BAD_REQUEST',
        );
      });

      it('answers 404 for ids and path segments that are not UUIDs, and for unknown records', async () => {
        const s = await setup();
        const token = s.tokens.admin;
        expectError(await send(s.api, 'GET', `${paths.customers()}/not-a-uuid`, { token }), 404, 'NOT_FOUND');
        expectError(await send(s.api, 'GET', `/v1/workspaces/nope/customers`, { token }), 404, 'NOT_FOUND');
        expectError(await send(s.api, 'GET', `${paths.customers()}/${ids.otherCell}`, { token }), 404, 'NOT_FOUND');
      });
    });

    describe('optimistic concurrency', () => {
      it('PATCH merge form bumps the version; a stale expectedVersion is 409 with details', async () => {
        const s = await setup();
        const { body } = await createCustomer(s);
        const url = `${paths.customers()}/${body.data.id}`;
        const patched = await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { expectedVersion: 1, status: 'active' } });
        expect(patched.status).toBe(200);
        expect(patched.body.data).toMatchObject({ status: 'active', name: 'Acme Corp', version: 2 });
        expect(patched.headers.get('etag')).toBe('"2"');
        const stale = await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { expectedVersion: 1, status: 'inactive' } });
        expectError(stale, 409, 'CONFLICT');
        expect(stale.body.details).toEqual({ expectedVersion: 1, currentVersion: 2 });
      });

      it('PATCH JSON Patch form applies RFC 6902 operations', async () => {
        const s = await setup();
        const { body } = await createCustomer(s, customer({ phone: '+1 555 0100' }));
        const url = `${paths.customers()}/${body.data.id}`;
        const patched = await send(s.api, 'PATCH', url, {
          token: s.tokens.admin,
          body: {
            expectedVersion: 1,
            patch: [
              { op: 'replace', path: '/name', value: 'Acme Ltd' },
              { op: 'remove', path: '/phone' },
            ],
          },
        });
        expect(patched.status, patched.text).toBe(200);
        expect(patched.body.data.name).toBe('Acme Ltd');
        expect(patched.body.data.phone ?? null).toBeNull();
        for (const path of ['/id', '/version', '/__proto__/x', '/tenantId']) {
          const refused = await send(s.api, 'PATCH', url, {
            token: s.tokens.admin,
            body: { expectedVersion: 2, patch: [{ op: 'replace', path, value: 'x' }] },
          });
          expectError(refused, 400, 'VALIDATION_ERROR');
        }
      });

      it('accepts If-Match in place of the body version; a stale If-Match is 412', async () => {
        const s = await setup();
        const { body } = await createCustomer(s);
        const url = `${paths.customers()}/${body.data.id}`;
        const ok = await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { name: 'B' }, headers: { 'if-match': '"1"' } });
        expect(ok.status, ok.text).toBe(200);
        const stale = await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { name: 'C' }, headers: { 'if-match': '"1"' } });
        expectError(stale, 412, 'PRECONDITION_FAILED');
        expect(stale.body.details).toEqual({ expectedVersion: 1, currentVersion: 2 });
        expectError(await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { name: 'C' }, headers: { 'if-match': 'W/"2"' } }), 400, 'VALIDATION_ERROR');
        expectError(await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { name: 'C' } }), 400, 'VALIDATION_ERROR');
      });

      it('a PATCH that changes nothing answers 200 with the same version and writes no audit record', async () => {
        const s = await setup();
        const { body } = await createCustomer(s);
        const url = `${paths.customers()}/${body.data.id}`;
        const same = await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { expectedVersion: 1, name: 'Acme Corp' } });
        expect(same.status).toBe(200);
        expect(same.body.meta.version).toBe(1);
        expect((await auditOf(s, body.data.id)).body.data).toHaveLength(1);
      });

      it('DELETE needs If-Match or ?expectedVersion and soft-deletes with version + 1', async () => {
        const s = await setup();
        const a = (await createCustomer(s)).body.data;
        const b = (await createCustomer(s, customer({ name: 'Beta' }))).body.data;
        expectError(await send(s.api, 'DELETE', `${paths.customers()}/${a.id}`, { token: s.tokens.admin }), 400, 'VALIDATION_ERROR');
        const staleQuery = await send(s.api, 'DELETE', `${paths.customers()}/${a.id}?expectedVersion=7`, { token: s.tokens.admin });
        expectError(staleQuery, 409, 'CONFLICT');
        expectError(
          await send(s.api, 'DELETE', `${paths.customers()}/${a.id}`, { token: s.tokens.admin, headers: { 'if-match': '"7"' } }),
          412,
          'PRECONDITION_FAILED',
        );
        const byQuery = await send(s.api, 'DELETE', `${paths.customers()}/${a.id}?expectedVersion=1`, { token: s.tokens.admin });
        expect(byQuery.status).toBe(200);
        expect(byQuery.body.data.deletedAt).not.toBeNull();
        expect(byQuery.body.data.deletedBy).toBe(ids.admin);
        expect(byQuery.body.meta.version).toBe(2);
        const byHeader = await send(s.api, 'DELETE', `${paths.customers()}/${b.id}`, { token: s.tokens.admin, headers: { 'if-match': '"1"' } });
        expect(byHeader.status).toBe(200);
        expect(byHeader.headers.get('etag')).toBe('"2"');
      });
    });

    describe('soft delete, rollback and restore', () => {
      it('hides deleted records unless includeDeleted=true with admin access and the read permission', async () => {
        const s = await setup();
        const a = (await createCustomer(s)).body.data;
        await createCustomer(s, customer({ name: 'Kept' }));
        await send(s.api, 'DELETE', `${paths.customers()}/${a.id}?expectedVersion=1`, { token: s.tokens.admin });
        const list = await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin });
        expect(list.body.meta.total).toBe(1);
        const withDeleted = await send(s.api, 'GET', `${paths.customers()}?includeDeleted=true`, { token: s.tokens.admin });
        expect(withDeleted.body.meta.total).toBe(2);
        expectError(await send(s.api, 'GET', `${paths.customers()}?includeDeleted=true`, { token: s.tokens.adminNoPerms }), 403, 'FORBIDDEN');
        expectError(await send(s.api, 'GET', `${paths.customers()}?includeDeleted=true`, { token: s.tokens.editor }), 403, 'FORBIDDEN');
      });

      it('restores a deleted record through rollback (entity.restored) and needs audit:restore', async () => {
        const s = await setup();
        const a = (await createCustomer(s)).body.data;
        const url = `${paths.customers()}/${a.id}`;
        await send(s.api, 'DELETE', `${url}?expectedVersion=1`, { token: s.tokens.admin });
        expectError(await send(s.api, 'POST', `${url}/rollback`, { token: s.tokens.adminNoPerms, body: { targetVersion: 1 } }), 403, 'FORBIDDEN');
        const restored = await send(s.api, 'POST', `${url}/rollback`, {
          token: s.tokens.admin,
          body: { targetVersion: 1, expectedVersion: 2, reason: 'deleted by mistake' },
        });
        expect(restored.status, restored.text).toBe(200);
        expect(restored.body.data).toMatchObject({ deletedAt: null, deletedBy: null, version: 3, name: 'Acme Corp' });
        const audit = (await auditOf(s, a.id)).body.data;
        expect(audit.map((r: { eventType: string }) => r.eventType)).toEqual(['entity.restored', 'entity.deleted', 'entity.created']);
        expect(audit[0].reason).toBe('deleted by mistake');
      });

      it('rolls back by a new version, exact for sensitive fields; 409 on a stale expectedVersion; 422 on a bad target', async () => {
        const s = await setup();
        const a = (await createCustomer(s, customer({ email: 'first@acme.example' }))).body.data;
        const url = `${paths.customers()}/${a.id}`;
        await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { expectedVersion: 1, email: 'second@acme.example', name: 'Renamed' } });
        expectError(await send(s.api, 'POST', `${url}/rollback`, { token: s.tokens.admin, body: { targetVersion: 1, expectedVersion: 1 } }), 409, 'CONFLICT');
        expectError(await send(s.api, 'POST', `${url}/rollback`, { token: s.tokens.admin, body: { targetVersion: 2 } }), 422, 'INVALID_TARGET_VERSION');
        expectError(await send(s.api, 'POST', `${url}/rollback`, { token: s.tokens.admin, body: { targetVersion: 9 } }), 422, 'INVALID_TARGET_VERSION');
        const rolled = await send(s.api, 'POST', `${url}/rollback`, { token: s.tokens.admin, body: { targetVersion: 1, mode: 'revert-by-new-version' } });
        expect(rolled.status, rolled.text).toBe(200);
        expect(rolled.body.data).toMatchObject({ email: 'first@acme.example', name: 'Acme Corp', version: 3 });
        expect(rolled.headers.get('etag')).toBe('"3"');
        expect((await auditOf(s, a.id)).body.data[0].eventType).toBe('entity.rollback');
      });

      it('refuses rollback on tier-3 with 422 ROLLBACK_DISABLED and on tier-2 when disabled', async () => {
        const s = await setup({ resources: [demoEntity('activity-event'), { entity: demoEntity('invoice'), rollback: false }] as never[] });
        const event = await send(s.api, 'POST', paths.events(), { token: s.tokens.admin, body: { kind: 'login', payload: { ok: true } } });
        expect(event.status, event.text).toBe(201);
        expectError(
          await send(s.api, 'POST', `${paths.events()}/${event.body.data.id}/rollback`, { token: s.tokens.admin, body: { targetVersion: 1 } }),
          422,
          'ROLLBACK_DISABLED',
        );
        const inv = await send(s.api, 'POST', paths.invoices(), { token: s.tokens.admin, body: invoice() });
        await send(s.api, 'PATCH', `${paths.invoices()}/${inv.body.data.id}`, { token: s.tokens.admin, body: { expectedVersion: 1, amount: 5 } });
        expectError(
          await send(s.api, 'POST', `${paths.invoices()}/${inv.body.data.id}/rollback`, { token: s.tokens.admin, body: { targetVersion: 1 } }),
          422,
          'ROLLBACK_DISABLED',
        );
      });
    });

    describe('audit and history', () => {
      it('records every state change with request metadata, a JSON Patch diff and redaction', async () => {
        const s = await setup();
        const correlation = '0f0e0d0c-0b0a-4909-8807-060504030201';
        const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
        const created = await send(s.api, 'POST', paths.customers(), {
          token: s.tokens.admin,
          body: customer({ email: 'secret.person@acme.example', notes: 'confidential note text' }),
          headers: {
            'x-correlation-id': correlation,
            traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
            'user-agent': 'behaviour-suite/1.0',
            'x-forwarded-for': '203.0.113.7, 10.0.0.1',
          },
        });
        expect(created.headers.get('x-correlation-id')).toBe(correlation);
        const id = created.body.data.id;
        await send(s.api, 'PATCH', `${paths.customers()}/${id}`, {
          token: s.tokens.admin,
          body: { expectedVersion: 1, email: 'other.person@acme.example', notes: 'another secret note', annualRevenue: 2000 },
        });
        const audit = await auditOf(s, id);
        expect(audit.status).toBe(200);
        expect(audit.body.meta).toEqual({ limit: 100, nextCursor: null });
        const [update, create] = audit.body.data;
        expect(create).toMatchObject({
          tenantId: ids.tenant,
          workspaceId: ids.ws,
          cellId: null,
          actorId: ids.admin,
          actorType: 'user',
          eventType: 'entity.created',
          resourceType: 'crm.Customer@v1',
          resourceId: id,
          resourceVersion: 1,
          baseVersion: null,
          requestId: correlation,
          traceId,
          ip: '203.0.113.7',
          userAgent: 'behaviour-suite/1.0',
        });
        for (const key of ['id', 'occurredAt', 'changeKind', 'diff', 'snapshot', 'redactionApplied', 'tags']) expect(create).toHaveProperty(key);
        expect(update).toMatchObject({ eventType: 'entity.updated', resourceVersion: 2, baseVersion: 1 });
        expect(Array.isArray(update.diff)).toBe(true);
        const ops = update.diff as Array<{ op: string; path: string; value?: unknown }>;
        expect(ops.find((op) => op.path === '/annualRevenue')).toMatchObject({ op: 'replace', value: 2000 });
        const email = ops.find((op) => op.path === '/email');
        expect(email).toBeDefined();
        expect(email).not.toHaveProperty('value');
        const text = audit.text;
        for (const secret of ['secret.person@acme.example', 'other.person@acme.example', 'confidential note text', 'another secret note'])
          expect(text).not.toContain(secret);
        const one = await send(s.api, 'GET', `/v1/audit/${create.id}`, { token: s.tokens.admin });
        expect(one.body.data).toEqual(create);
      });

      it('never stores a credential field (payment_token) in audit, versions or logs', async () => {
        const s = await setup({ audit: { storeSnapshots: true, storeDiffValues: true } });
        const token = 'tok_live_4242_very_secret_value';
        const created = await send(s.api, 'POST', paths.invoices(), { token: s.tokens.admin, body: invoice({ paymentToken: token }) });
        expect(created.status, created.text).toBe(201);
        const url = `${paths.invoices()}/${created.body.data.id}`;
        await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { expectedVersion: 1, paymentToken: `${token}_2` } });
        const versions = await send(s.api, 'GET', `${url}/versions`, { token: s.tokens.admin });
        expect(versions.status, versions.text).toBe(200);
        expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
        const audit = await auditOf(s, created.body.data.id);
        for (const output of [versions.text, audit.text, JSON.stringify(s.logs)]) expect(output).not.toContain(token);
        // The record itself still holds the credential (rollback stays exact).
        expect((await send(s.api, 'GET', url, { token: s.tokens.admin })).body.data.paymentToken).toBe(`${token}_2`);
        // Sensitive personal data and hashed free text stay out of snapshots too.
        const c = (await createCustomer(s, customer({ email: 'hidden.person@acme.example', phone: '+1 555 0199', notes: 'never show this note' }))).body.data;
        await send(s.api, 'PATCH', `${paths.customers()}/${c.id}`, { token: s.tokens.admin, body: { expectedVersion: 1, email: 'moved.person@acme.example' } });
        const outputs = [
          (await send(s.api, 'GET', `${paths.customers()}/${c.id}/versions`, { token: s.tokens.admin })).text,
          (await auditOf(s, c.id)).text,
          JSON.stringify(s.logs),
        ];
        for (const output of outputs) {
          for (const value of ['hidden.person@acme.example', 'moved.person@acme.example', '+1 555 0199', 'never show this note'])
            expect(output).not.toContain(value);
        }
      });

      it('pages history with cursors, newest first, and needs audit:read', async () => {
        const s = await setup();
        const a = (await createCustomer(s)).body.data;
        const url = `${paths.customers()}/${a.id}`;
        for (let v = 1; v <= 4; v++) await send(s.api, 'PATCH', url, { token: s.tokens.admin, body: { expectedVersion: v, annualRevenue: v * 10 } });
        const first = await send(s.api, 'GET', `${url}/versions?limit=2`, { token: s.tokens.admin });
        expect(first.body.data.map((v: { version: number }) => v.version)).toEqual([5, 4]);
        expect(first.body.meta.limit).toBe(2);
        const second = await send(s.api, 'GET', `${url}/versions?limit=2&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { token: s.tokens.admin });
        expect(second.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2]);
        const auditPage = await send(s.api, 'GET', `/v1/audit?resourceType=crm.Customer@v1&limit=3`, { token: s.tokens.admin });
        expect(auditPage.body.data.map((r: { resourceVersion: number }) => r.resourceVersion)).toEqual([5, 4, 3]);
        const next = await send(s.api, 'GET', `/v1/audit?resourceType=crm.Customer@v1&limit=3&cursor=${encodeURIComponent(auditPage.body.meta.nextCursor)}`, {
          token: s.tokens.admin,
        });
        expect(next.body.data.map((r: { resourceVersion: number }) => r.resourceVersion)).toEqual([2, 1]);
        expect(next.body.meta.nextCursor).toBeNull();
        expectError(await send(s.api, 'GET', '/v1/audit', { token: s.tokens.viewer }), 403, 'FORBIDDEN');
        expectError(await send(s.api, 'GET', `${url}/versions`, { token: s.tokens.viewer }), 403, 'FORBIDDEN');
        expectError(await send(s.api, 'GET', '/v1/audit?limit=0', { token: s.tokens.admin }), 400, 'VALIDATION_ERROR');
        expectError(await send(s.api, 'GET', '/v1/audit?resourceId=nope', { token: s.tokens.admin }), 400, 'VALIDATION_ERROR');
        expectError(await send(s.api, 'GET', `/v1/audit/${ids.otherCell}`, { token: s.tokens.admin }), 404, 'NOT_FOUND');
        // Another tenant sees none of it.
        expect((await send(s.api, 'GET', '/v1/audit', { token: s.tokens.otherTenant })).body.data).toEqual([]);
        expectError(await send(s.api, 'GET', `/v1/audit/${next.body.data[0].id}`, { token: s.tokens.otherTenant }), 404, 'NOT_FOUND');
      });

      it('limits /v1/audit to workspaces where an actor without tenant-wide roles holds a role', async () => {
        const s = await setup();
        const a = (await createCustomer(s)).body.data;
        const other = (await send(s.api, 'POST', paths.customers(ids.otherWs), { token: s.tokens.admin, body: customer() })).body.data;
        const tenantLevel = (await send(s.api, 'POST', paths.events(), { token: s.tokens.admin, body: { kind: 'login', payload: { ok: true } } })).body.data;
        // Without workspaceId: the records of its workspaces, none of other workspaces, none at tenant level (docs/decisions/B08.md).
        const reach = await send(s.api, 'GET', '/v1/audit', { token: s.tokens.editor });
        expect(reach.status).toBe(200);
        expect(reach.body.data.map((r: { resourceId: string }) => r.resourceId)).toEqual([a.id]);
        const tenantAudit = (await send(s.api, 'GET', `/v1/audit?resourceId=${tenantLevel.id}`, { token: s.tokens.admin })).body.data[0];
        expectError(await send(s.api, 'GET', `/v1/audit/${tenantAudit.id}`, { token: s.tokens.editor }), 404, 'NOT_FOUND');
        expect((await send(s.api, 'GET', '/v1/audit', { token: s.tokens.admin })).body.data).toHaveLength(3);
        expectError(await send(s.api, 'GET', `/v1/audit?workspaceId=${ids.otherWs}`, { token: s.tokens.editor }), 403, 'FORBIDDEN');
        const own = await send(s.api, 'GET', `/v1/audit?workspaceId=${ids.ws}`, { token: s.tokens.editor });
        expect(own.body.data.map((r: { resourceId: string }) => r.resourceId)).toEqual([a.id]);
        const foreign = (await send(s.api, 'GET', `/v1/audit?resourceId=${other.id}`, { token: s.tokens.admin })).body.data[0];
        expectError(await send(s.api, 'GET', `/v1/audit/${foreign.id}`, { token: s.tokens.editor }), 404, 'NOT_FOUND');
        expect((await send(s.api, 'GET', `/v1/audit/${own.body.data[0].id}`, { token: s.tokens.editor })).status).toBe(200);
      });
    });

    describe('authentication and access', () => {
      it('answers 401 UNAUTHENTICATED for missing, expired, forged, alg none and claim-less tokens, echoing the correlation id', async () => {
        const s = await setup();
        const key = new TextEncoder().encode(SECRET);
        const tokens = {
          missing: undefined,
          expired: await mint({ expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
          forged: await mint({ secret: 'a-completely-different-secret-of-enough-length' }),
          none: new UnsecuredJWT({ sub: ids.admin, tenant_id: ids.tenant }).setExpirationTime('5m').encode(),
          noTenant: await new SignJWT({ roles: ['admin'] }).setProtectedHeader({ alg: 'HS256' }).setSubject(ids.admin).setExpirationTime('5m').sign(key),
          badSub: await new SignJWT({ tenant_id: ids.tenant }).setProtectedHeader({ alg: 'HS256' }).setSubject('bob').setExpirationTime('5m').sign(key),
          garbage: 'abc.def.ghi',
        };
        for (const [name, token] of Object.entries(tokens)) {
          const answer = await send(s.api, 'GET', paths.customers(), {
            ...(token === undefined ? {} : { token }),
            headers: { 'x-correlation-id': ids.otherCell },
          });
          expectError(answer, 401, 'UNAUTHENTICATED');
          expect(answer.headers.get('x-correlation-id'), name).toBe(ids.otherCell);
          expect(answer.body.message).not.toMatch(/jose|JWS|ERR_/);
        }
      });

      it('checks issuer and audience when configured', async () => {
        const s = await setup({ auth: { secret: SECRET, issuer: 'https://id.test', audience: 'cellgate-tests' } });
        const good = await mint({ roles: ['admin'], extra: { iss: 'https://id.test', aud: 'cellgate-tests' } });
        expect((await send(s.api, 'GET', paths.customers(), { token: good })).status).toBe(200);
        const wrongIss = await mint({ roles: ['admin'], extra: { iss: 'https://evil.test', aud: 'cellgate-tests' } });
        expectError(await send(s.api, 'GET', paths.customers(), { token: wrongIss }), 401, 'UNAUTHENTICATED');
        const wrongAud = await mint({ roles: ['admin'], extra: { iss: 'https://id.test', aud: 'someone-else' } });
        expectError(await send(s.api, 'GET', paths.customers(), { token: wrongAud }), 401, 'UNAUTHENTICATED');
      });

      it('maps roles to view/edit/admin: viewers read, editors write, only admins delete', async () => {
        const s = await setup();
        const a = (await createCustomer(s)).body.data;
        const url = `${paths.customers()}/${a.id}`;
        expect((await send(s.api, 'GET', url, { token: s.tokens.viewer })).status).toBe(200);
        expectError(await send(s.api, 'POST', paths.customers(), { token: s.tokens.viewer, body: customer() }), 403, 'FORBIDDEN');
        expectError(await send(s.api, 'PATCH', url, { token: s.tokens.viewer, body: { expectedVersion: 1, name: 'x' } }), 403, 'FORBIDDEN');
        expect((await send(s.api, 'PATCH', url, { token: s.tokens.editor, body: { expectedVersion: 1, name: 'x' } })).status).toBe(200);
        expectError(await send(s.api, 'DELETE', `${url}?expectedVersion=2`, { token: s.tokens.editor }), 403, 'FORBIDDEN');
        expectError(await send(s.api, 'GET', paths.customers(), { token: s.tokens.stranger }), 403, 'FORBIDDEN');
        expect((await send(s.api, 'GET', url, { token: s.tokens.admin })).body.meta.version).toBe(2);
      });

      it('hides records of another tenant, workspace or cell as 404', async () => {
        const s = await setup();
        const a = (await createCustomer(s)).body.data;
        const inv = (await send(s.api, 'POST', paths.invoices(), { token: s.tokens.admin, body: invoice() })).body.data;
        expectError(await send(s.api, 'GET', `${paths.customers(ids.otherWs)}/${a.id}`, { token: s.tokens.admin }), 404, 'NOT_FOUND');
        expectError(await send(s.api, 'GET', `${paths.invoices(ids.ws, ids.otherCell)}/${inv.id}`, { token: s.tokens.admin }), 404, 'NOT_FOUND');
        expectError(await send(s.api, 'GET', `${paths.customers()}/${a.id}`, { token: s.tokens.otherTenant }), 404, 'NOT_FOUND');
        expectError(
          await send(s.api, 'PATCH', `${paths.customers()}/${a.id}`, { token: s.tokens.otherTenant, body: { expectedVersion: 1, name: 'stolen' } }),
          404,
          'NOT_FOUND',
        );
        expect((await send(s.api, 'GET', paths.customers(), { token: s.tokens.otherTenant })).body.meta.total).toBe(0);
        expect((await send(s.api, 'GET', `${paths.customers()}/${a.id}`, { token: s.tokens.admin })).body.data.name).toBe('Acme Corp');
      });

      it('answers 403 PLAN_RESTRICTION with requiredPlan and currentPlan', async () => {
        const s = await setup({ resources: [{ entity: demoEntity('customer'), plans: ['pro', 'enterprise'] }] as never[] });
        const free = await mint({ roles: ['admin'], plan: 'free' });
        const answer = await send(s.api, 'GET', paths.customers(), { token: free });
        expectError(answer, 403, 'PLAN_RESTRICTION');
        expect(answer.body.details).toEqual({ requiredPlan: 'pro', currentPlan: 'free' });
        expect((await send(s.api, 'GET', paths.customers(), { token: await mint({ roles: ['admin'], plan: 'enterprise' }) })).status).toBe(200);
      });
    });

    describe('lists', () => {
      async function seedInvoices(s: Setup) {
        const rows = [
          { invoiceNumber: 'INV-1', customerName: 'Acme', amount: 50, status: 'PAID', dueDate: '2026-01-10T00:00:00.000Z' },
          { invoiceNumber: 'INV-2', customerName: 'Beta', amount: 150, status: 'SENT', dueDate: '2026-01-20T00:00:00.000Z' },
          { invoiceNumber: 'INV-3', customerName: 'Acme Two', amount: 250, status: 'PAID', dueDate: '2026-02-15T00:00:00.000Z' },
          { invoiceNumber: 'INV-4', customerName: 'Gamma', amount: 100, status: 'DRAFT', dueDate: '2026-03-01T00:00:00.000Z' },
        ];
        for (const row of rows) {
          const answer = await send(s.api, 'POST', paths.invoices(), { token: s.tokens.admin, body: invoice(row) });
          expect(answer.status, answer.text).toBe(201);
          // Distinct createdAt values, so the default order (created_at desc) has no ties to break by id.
          await new Promise((resolve) => setTimeout(resolve, 3));
        }
      }
      const numbers = (answer: Answer) => answer.body.data.map((row: { invoiceNumber: string }) => row.invoiceNumber);

      it('filters with the declared operators, coerced to the field type, and counts after filters', async () => {
        const s = await setup();
        await seedInvoices(s);
        const q = (query: string) => send(s.api, 'GET', `${paths.invoices()}?${query}&sortBy=amount`, { token: s.tokens.admin });
        expect(numbers(await q('status=PAID'))).toEqual(['INV-1', 'INV-3']);
        expect((await q('status=PAID')).body.meta.total).toBe(2);
        expect(numbers(await q('amount[gt]=100'))).toEqual(['INV-2', 'INV-3']);
        expect(numbers(await q('status[in]=PAID,SENT'))).toEqual(['INV-1', 'INV-2', 'INV-3']);
        expect(numbers(await q('dueDate[between]=2026-01-15,2026-02-28'))).toEqual(['INV-2', 'INV-3']);
        expect(numbers(await q('dueDate[before]=2026-01-15'))).toEqual(['INV-1']);
        expect(numbers(await q('q=acme'))).toEqual(['INV-1', 'INV-3']);
        const customers = await setup();
        await createCustomer(customers, customer({ name: 'Acme Corp' }));
        await createCustomer(customers, customer({ name: 'Zeta' }));
        const contains = await send(customers.api, 'GET', `${paths.customers()}?name[contains]=cm`, { token: customers.tokens.admin });
        expect(contains.body.data.map((c: { name: string }) => c.name)).toEqual(['Acme Corp']);
      });

      it('sorts by allowed fields (default created_at desc), pages and clamps pageSize', async () => {
        const s = await setup();
        await seedInvoices(s);
        const get = (query: string) => send(s.api, 'GET', `${paths.invoices()}?${query}`, { token: s.tokens.admin });
        expect(numbers(await get('sortBy=amount&sortDir=desc'))).toEqual(['INV-3', 'INV-2', 'INV-4', 'INV-1']);
        expect(numbers(await get(''))).toEqual(['INV-4', 'INV-3', 'INV-2', 'INV-1']);
        const page2 = await get('sortBy=amount&page=2&pageSize=3');
        expect(numbers(page2)).toEqual(['INV-3']);
        expect(page2.body.meta).toEqual({ total: 4, page: 2, pageSize: 3 });
        expect((await get('pageSize=500')).body.meta.pageSize).toBe(100);
      });

      it('honours Prefer: count=exact|planned|estimated with Preference-Applied and meta.count', async () => {
        const s = await setup();
        await seedInvoices(s);
        const get = (prefer?: string) =>
          send(s.api, 'GET', paths.invoices(), { token: s.tokens.admin, ...(prefer === undefined ? {} : { headers: { prefer } }) });
        const plain = await get();
        expect(plain.body.meta).toEqual({ total: 4, page: 1, pageSize: 20 });
        expect(plain.headers.get('preference-applied')).toBeNull();
        for (const method of ['exact', 'estimated'] as const) {
          const answer = await get(`return=minimal, count=${method}`);
          expect(answer.status).toBe(200);
          expect(answer.headers.get('preference-applied')).toBe(`count=${method}`);
          // Four rows: far below the threshold, so even `estimated` counts exactly.
          expect(answer.body.meta).toEqual({ total: 4, page: 1, pageSize: 20, count: 'exact' });
        }
        const planned = await get('count=planned');
        expect(planned.headers.get('preference-applied')).toBe('count=planned');
        expect(planned.body.data).toHaveLength(4);
        // Every driver counts the caller's own rows up to the threshold (never a table-wide estimate): four rows are exact.
        expect(planned.body.meta).toEqual({ total: 4, page: 1, pageSize: 20, count: 'exact' });
        // A preference we do not support is ignored (RFC 7240), not refused.
        const unknown = await get('count=bogus');
        expect(unknown.status).toBe(200);
        expect(unknown.headers.get('preference-applied')).toBeNull();
        expect(unknown.body.meta).toEqual({ total: 4, page: 1, pageSize: 20 });
      });

      it('refuses unknown or malformed parameters with 400 naming the parameter', async () => {
        const s = await setup();
        const bad = [
          'pageSize=0',
          'page=0',
          'page=abc',
          'sortBy=customerName',
          'sortDir=up',
          'status[gt]=PAID',
          'amount=12',
          'amount[gt]=lots',
          'dueDate[between]=2026-01-01',
          'dueDate[after]=yesterday',
          'status=UNKNOWN',
          'paymentToken=x',
          'includeDeleted=yes',
          'customer_id=x',
        ];
        for (const query of bad) {
          const answer = await send(s.api, 'GET', `${paths.invoices()}?${query}`, { token: s.tokens.admin });
          expectError(answer, 400, 'VALIDATION_ERROR');
          const param = query.split('=')[0]!;
          expect(
            answer.body.details.fields.map((f: { path: string }) => f.path),
            query,
          ).toContain(param);
          expect(answer.body.message).toContain(param);
        }
      });
    });

    describe('errors, correlation, idempotency, rate limits, metrics, deprecation', () => {
      it('echoes X-Correlation-ID on every answer and generates one when absent', async () => {
        const s = await setup();
        const given = '12345678-1234-4234-8234-123456789abc';
        for (const [method, path] of [
          ['GET', paths.customers()],
          ['PUT', paths.customers()],
          ['GET', `${paths.customers()}/x`],
        ] as const) {
          const answer = await send(s.api, method, path, { token: s.tokens.admin, headers: { 'x-correlation-id': given } });
          expect(answer.headers.get('x-correlation-id')).toBe(given);
        }
        const generated = await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin });
        expect(generated.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
        const invalid = await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin, headers: { 'x-correlation-id': 'not a uuid' } });
        expect(invalid.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
      });

      it('answers an unexpected failure as INTERNAL_ERROR carrying the correlation id, nothing else', async () => {
        const s = await setup({
          hooks: {
            onRequest: () => {
              throw new Error('database exploded at db.internal:5432');
            },
          },
        });
        const correlation = 'abcdefab-cdef-4bcd-8bcd-abcdefabcdef';
        const answer = await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin, headers: { 'x-correlation-id': correlation } });
        expectError(answer, 500, 'INTERNAL_ERROR');
        expect(answer.body.details).toEqual({ correlationId: correlation });
        expect(answer.text).not.toContain('exploded');
        expect(s.errors).toHaveLength(1);
      });

      it('lets hooks see the scope, refuse with a CellgateError and replace answers', async () => {
        const seen: unknown[] = [];
        const s = await setup({
          hooks: {
            onRequest: (_req, { actor, scope }) => {
              seen.push(scope);
              if (actor.id === ids.viewer) throw new CellgateError('FORBIDDEN', 'Viewers are paused.');
            },
            onResponse: (response) => {
              response.headers.set('x-hooked', 'yes');
            },
          },
        });
        const refused = await send(s.api, 'GET', paths.customers(), { token: s.tokens.viewer });
        expectError(refused, 403, 'FORBIDDEN');
        expect(refused.headers.get('x-hooked')).toBe('yes');
        await send(s.api, 'GET', paths.invoices(), { token: s.tokens.admin });
        expect(seen).toEqual([{ workspaceId: ids.ws }, { workspaceId: ids.ws, cellId: ids.cell }]);
      });

      it('replays a create with the same Idempotency-Key and refuses another body with 422', async () => {
        const s = await setup();
        const headers = { 'idempotency-key': 'create-acme-1' };
        const first = await send(s.api, 'POST', paths.customers(), { token: s.tokens.admin, body: customer(), headers });
        const again = await send(s.api, 'POST', paths.customers(), { token: s.tokens.admin, body: customer(), headers });
        expect(first.status).toBe(201);
        expect(again.status).toBe(201);
        expect(again.body.data.id).toBe(first.body.data.id);
        expect((await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin })).body.meta.total).toBe(1);
        const other = await send(s.api, 'POST', paths.customers(), { token: s.tokens.admin, body: customer({ name: 'Other' }), headers });
        expect(other.status).toBe(422);
        expectError(
          await send(s.api, 'POST', paths.customers(), { token: s.tokens.admin, body: customer(), headers: { 'idempotency-key': 'ü'.repeat(3) } }),
          400,
          'VALIDATION_ERROR',
        );
      });

      it('rate limits per tenant + actor with 429 and Retry-After', async () => {
        const s = await setup({ rateLimit: { limit: 3, windowMs: 60_000 } });
        for (let i = 0; i < 3; i++) expect((await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin })).status).toBe(200);
        const limited = await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin });
        expectError(limited, 429, 'RATE_LIMITED');
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        // Another actor has its own budget; the limit spans every resource of the API.
        expect((await send(s.api, 'GET', paths.customers(), { token: s.tokens.viewer })).status).toBe(200);
        expectError(await send(s.api, 'GET', paths.events(), { token: s.tokens.admin }), 429, 'RATE_LIMITED');
      });

      it('counts writes and conflicts in the metrics registry and logs structured entries', async () => {
        const s = await setup();
        const a = (await createCustomer(s)).body.data;
        await send(s.api, 'PATCH', `${paths.customers()}/${a.id}`, { token: s.tokens.admin, body: { expectedVersion: 5, name: 'x' } });
        const text = s.metrics.render();
        expect(text).toMatch(/entity_write_total\{[^}]*eventType="entity.created"[^}]*\} 1/);
        expect(text).toMatch(/entity_conflict_total\{[^}]*resourceType="crm.Customer@v1"[^}]*\} 1/);
        expect(s.logs).toContainEqual(
          expect.objectContaining({ tenantId: ids.tenant, workspaceId: ids.ws, resourceType: 'crm.Customer@v1', resourceId: a.id, version: 1 }),
        );
      });

      it('adds Deprecation and Sunset headers to a deprecated resource', async () => {
        const s = await setup({
          resources: [
            { entity: demoEntity('customer'), deprecation: { sunset: '2027-06-30T00:00:00Z', link: 'https://docs.example/v2' } },
            demoEntity('invoice'),
          ] as never[],
        });
        const answer = await send(s.api, 'GET', paths.customers(), { token: s.tokens.admin });
        expect(answer.headers.get('deprecation')).toBe('true');
        expect(answer.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
        expect(answer.headers.get('link')).toBe('<https://docs.example/v2>; rel="deprecation"');
        expect((await send(s.api, 'GET', paths.invoices(), { token: s.tokens.admin })).headers.get('deprecation')).toBeNull();
      });
    });

    describe('concurrency over real HTTP', () => {
      it('50 parallel PATCHes with one expectedVersion: exactly one 200, the rest 409; audit versions contiguous', async () => {
        const s = await setup();
        const server = await serve(s.api);
        try {
          const a = (await createCustomer(s)).body.data;
          const url = `${paths.customers()}/${a.id}`;
          const answers = await Promise.all(
            Array.from({ length: 50 }, (_, i) => send(server.url, 'PATCH', url, { token: s.tokens.admin, body: { expectedVersion: 1, annualRevenue: i + 1 } })),
          );
          const statuses = answers.map((answer) => answer.status);
          expect(statuses.filter((status) => status === 200)).toHaveLength(1);
          expect(statuses.filter((status) => status === 409)).toHaveLength(49);
          // Then a chain of sequential writes keeps versions contiguous with no duplicates.
          for (let v = 2; v <= 5; v++)
            expect((await send(server.url, 'PATCH', url, { token: s.tokens.admin, body: { expectedVersion: v, annualRevenue: v * 1000 } })).status).toBe(200);
          const audit = await send(server.url, 'GET', `/v1/audit?resourceId=${a.id}&limit=100`, { token: s.tokens.admin });
          const versions = audit.body.data.map((r: { resourceVersion: number }) => r.resourceVersion).reverse();
          expect(versions).toEqual([1, 2, 3, 4, 5, 6]);
        } finally {
          await server.close();
        }
      });
    });
  });
}
