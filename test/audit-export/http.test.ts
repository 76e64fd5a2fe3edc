/**
 * The audit export over HTTP (`GET /v1/audit` with `Accept: application/x-ndjson`) on a real node
 * server on 127.0.0.1: every record of the range as one JSON line, the shape of the JSON audit
 * page, redacted as stored; the reach of the export; validation; the JSON route unchanged; and a
 * stream that pulls from storage only as the client reads, stopping when the client cancels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGovernedApi, memoryStorage, type AuditRecord, type StorageDriver } from 'cellgate';
import { cast, expectError, ids, mint, SECRET, send, serve } from '../governed/support.ts';
import { ORDER_DOCUMENT } from '../events/support.ts';

const NDJSON = { accept: 'application/x-ndjson' };
const RANGE = 'from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z';
const orders = (workspaceId: string) => `/v1/workspaces/${workspaceId}/orders`;
const lines = (text: string): AuditRecord[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);

/** The memory driver, counting the records its exports read and the iterations that ended. */
function watched(): { storage: StorageDriver; pulled: () => number; closed: () => number } {
  const inner = memoryStorage();
  let pulled = 0;
  let closed = 0;
  const storage: StorageDriver = {
    ...inner,
    async *exportAudit(query) {
      try {
        for await (const record of inner.exportAudit(query)) {
          pulled += 1;
          yield record;
        }
      } finally {
        closed += 1;
      }
    },
  };
  return { storage, pulled: () => pulled, closed: () => closed };
}

describe('GET /v1/audit as NDJSON (node server on 127.0.0.1)', () => {
  const store = watched();
  let server: { url: string; close: () => Promise<void> };
  let tokens: Awaited<ReturnType<typeof cast>>;
  beforeAll(async () => {
    const handler = createGovernedApi({ storage: store.storage, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
    await handler.migrate();
    server = await serve(handler);
    tokens = await cast();
    for (let index = 0; index < 4; index += 1) {
      const answer = await send(server.url, 'POST', orders(index % 2 === 0 ? ids.ws : ids.otherWs), {
        token: tokens.admin,
        body: { title: `o${index}`, amount: index, cardToken: 'tok_CARD_secret' },
      });
      expect(answer.status).toBe(201);
    }
    await send(server.url, 'POST', orders(ids.ws), { token: tokens.otherTenant, body: { title: 'x', amount: 1 } });
  });
  afterAll(() => server?.close());

  it('streams every record of the range, oldest first, as the JSON audit page shows them', async () => {
    const answer = await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: tokens.admin, headers: NDJSON });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/x-ndjson');
    expect(answer.headers.get('x-correlation-id')).toBeTruthy();
    expect(answer.text.endsWith('\n')).toBe(true);
    const exported = lines(answer.text);
    const page = await send(server.url, 'GET', '/v1/audit', { token: tokens.admin });
    expect(exported).toEqual([...(page.body.data as AuditRecord[])].reverse());
    expect(exported).toHaveLength(4);
    expect(answer.text).not.toContain('tok_CARD_secret');
    // A range that ends before the first record, and one of a single resource type.
    const first = exported[0]!.occurredAt;
    expect((await send(server.url, 'GET', `/v1/audit?from=2000-01-01T00:00:00Z&to=${first}`, { token: tokens.admin, headers: NDJSON })).text).toBe('');
    const typed = await send(server.url, 'GET', `/v1/audit?${RANGE}&resourceType=other.Thing@v1`, { token: tokens.admin, headers: NDJSON });
    expect({ status: typed.status, text: typed.text }).toEqual({ status: 200, text: '' });
    const ours = await send(server.url, 'GET', `/v1/audit?${RANGE}&resourceType=shop.Order@v1&workspaceId=${ids.otherWs}`, {
      token: tokens.admin,
      headers: NDJSON,
    });
    expect(lines(ours.text).map((record) => record.workspaceId)).toEqual([ids.otherWs, ids.otherWs]);
  });

  it('exports the whole tenant only to a tenant-wide admin; a workspace reach exports its workspaces', async () => {
    expectError(await send(server.url, 'GET', `/v1/audit?${RANGE}`, { headers: NDJSON }), 401, 'UNAUTHENTICATED');
    expectError(await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: tokens.adminNoPerms, headers: NDJSON }), 403, 'FORBIDDEN');
    const editor = await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: tokens.editor, headers: NDJSON });
    expect(lines(editor.text).map((record) => record.workspaceId)).toEqual([ids.ws, ids.ws]);
    expectError(await send(server.url, 'GET', `/v1/audit?${RANGE}&workspaceId=${ids.otherWs}`, { token: tokens.editor, headers: NDJSON }), 403, 'FORBIDDEN');
    const viewerEverywhere = await mint({ sub: ids.viewer, roles: ['viewer'], workspaces: {}, permissions: ['audit:read'] });
    const refused = await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: viewerEverywhere, headers: NDJSON });
    expectError(refused, 403, 'FORBIDDEN');
    expect(refused.body.message).toContain('tenant-wide admin');
    const other = await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: tokens.otherTenant, headers: NDJSON });
    expect(lines(other.text).every((record) => record.tenantId === ids.otherTenant)).toBe(true);
    expect(lines(other.text)).toHaveLength(1);
  });

  it('answers 400 in the envelope for a missing, malformed or inverted range and unknown parameters', async () => {
    const bad = async (query: string, path: string) => {
      const answer = await send(server.url, 'GET', `/v1/audit?${query}`, { token: tokens.admin, headers: NDJSON });
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.details.fields.map((field: { path: string }) => field.path)).toContain(path);
    };
    await bad('to=2026-01-01T00:00:00Z', 'from');
    await bad('from=2026-01-01T00:00:00Z', 'to');
    await bad('from=yesterday&to=2026-01-01T00:00:00Z', 'from');
    await bad(`from=2026-02-30T00:00:00Z&to=2026-03-01T00:00:00Z`, 'from');
    await bad(`from=${'9'.repeat(5000)}&to=2026-03-01T00:00:00Z`, 'from');
    await bad('from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'to');
    await bad(`${RANGE}&limit=5`, 'limit');
    await bad(`${RANGE}&resourceType=nope`, 'resourceType');
  });

  it('leaves the JSON route as it was: no Accept, or JSON preferred, gets the page (and refuses from/to)', async () => {
    const page = await send(server.url, 'GET', '/v1/audit?limit=2', { token: tokens.admin });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.meta.nextCursor).toEqual(expect.any(String));
    const preferred = await send(server.url, 'GET', '/v1/audit?limit=1', {
      token: tokens.admin,
      headers: { accept: 'application/json, application/x-ndjson;q=0.5' },
    });
    expect(preferred.body.data).toHaveLength(1);
    expectError(await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: tokens.admin }), 400, 'VALIDATION_ERROR');
  });

  it('lists the NDJSON answer and the range parameters in the OpenAPI document', async () => {
    const document = createGovernedApi({ storage: memoryStorage(), auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] }).openapi() as {
      paths: Record<string, { get: { parameters: Array<{ name: string }>; responses: Record<string, { content: Record<string, unknown> }> } }>;
    };
    const list = document.paths['/v1/audit']!.get;
    expect(Object.keys(list.responses['200']!.content)).toEqual(['application/json', 'application/x-ndjson']);
    expect(list.parameters.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['from', 'to', 'limit', 'cursor']));
  });

  it('pulls from storage as the client reads, and stops reading when the client cancels', async () => {
    const tenantId = ids.tenant;
    const base = Date.UTC(2010, 0, 1);
    await store.storage.transaction(async (session) => {
      for (let index = 0; index < 20_000; index += 1) {
        await session.appendAudit({
          id: crypto.randomUUID(),
          tenantId,
          workspaceId: ids.ws,
          cellId: null,
          actorId: ids.admin,
          actorType: 'user',
          eventType: 'entity.updated',
          resourceType: 'shop.Order@v1',
          resourceId: crypto.randomUUID(),
          resourceVersion: 2,
          baseVersion: 1,
          occurredAt: new Date(base + index).toISOString(),
          requestId: null,
          traceId: null,
          ip: null,
          userAgent: null,
          changeKind: 'diff',
          diff: [{ op: 'replace', path: '/title', value: 'x'.repeat(400) }],
          snapshot: null,
          redactionApplied: false,
          tags: null,
          reason: null,
        });
      }
    });
    const range = 'from=2010-01-01T00:00:00Z&to=2010-01-02T00:00:00Z';
    const whole = await send(server.url, 'GET', `/v1/audit?${range}`, { token: tokens.admin, headers: NDJSON });
    expect(lines(whole.text)).toHaveLength(20_000);
    const before = store.pulled();
    const ended = store.closed();
    const response = await fetch(`${server.url}/v1/audit?${range}`, { headers: { ...NDJSON, authorization: `Bearer ${tokens.admin}` } });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    await expect.poll(() => store.closed(), { timeout: 10_000 }).toBe(ended + 1);
    const pulledAfterCancel = store.pulled() - before;
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Socket buffers hold some records, never the 9 MB export.
    expect(store.pulled() - before).toBe(pulledAfterCancel);
    expect(pulledAfterCancel).toBeLessThan(10_000);
  });
});
