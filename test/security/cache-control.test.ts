/**
 * Issue #26 item 6: every governed answer that depends on the token says `Cache-Control: no-store`
 * (records, lists, versions, writes, rollback, audit list and item, export, feed, and the errors of
 * those routes), so no shared or browser cache keeps a record for someone else. The public OpenAPI
 * document stays cacheable. Over HTTP on a real node server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGovernedApi, memoryStorage } from 'cellgate';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { cast, ids, send, SECRET, serve, type Answer } from '../governed/support.ts';

const orders = `/v1/workspaces/${ids.ws}/orders`;

describe('Cache-Control on governed answers (node server on 127.0.0.1)', () => {
  let server: { url: string; close: () => Promise<void> };
  let tokens: Awaited<ReturnType<typeof cast>>;
  beforeAll(async () => {
    const api = createGovernedApi({ storage: memoryStorage(), auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
    await api.migrate();
    server = await serve(api);
    tokens = await cast();
  });
  afterAll(() => server?.close());

  /** Sends, then asserts the status and `no-store`. */
  async function privately(status: number, method: string, path: string, options: Parameters<typeof send>[3] = {}): Promise<Answer> {
    const answer = await send(server.url, method, path, options);
    expect({ route: `${method} ${path}`, status: answer.status, cacheControl: answer.headers.get('cache-control') }).toEqual({
      route: `${method} ${path}`,
      status,
      cacheControl: 'no-store',
    });
    return answer;
  }

  it('sends no-store on every answer that depends on the token, errors included', async () => {
    const token = tokens.admin;
    const created = await privately(201, 'POST', orders, { token, body: { title: 'o1', amount: 1 } });
    const id = created.body.data.id as string;
    await privately(200, 'GET', `${orders}/${id}`, { token });
    await privately(200, 'GET', orders, { token });
    await privately(200, 'PATCH', `${orders}/${id}`, { token, body: { expectedVersion: 1, amount: 2 } });
    await privately(200, 'GET', `${orders}/${id}/versions`, { token });
    await privately(200, 'POST', `${orders}/${id}/rollback`, { token, body: { targetVersion: 1 } });
    await privately(409, 'PATCH', `${orders}/${id}`, { token, body: { expectedVersion: 1, amount: 3 } });
    await privately(200, 'DELETE', `${orders}/${id}`, { token, headers: { 'if-match': '"3"' } });
    const audit = await privately(200, 'GET', '/v1/audit', { token });
    await privately(200, 'GET', `/v1/audit/${audit.body.data[0].id}`, { token });
    await privately(200, 'GET', '/v1/audit?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z', { token, headers: { accept: 'application/x-ndjson' } });
    await privately(200, 'GET', '/v1/events', { token });
    // Errors of the same routes: no token, no role, no record, a bad body, a stale version.
    await privately(401, 'GET', `${orders}/${id}`);
    await privately(401, 'GET', '/v1/events');
    await privately(403, 'GET', orders, { token: tokens.stranger });
    await privately(403, 'GET', '/v1/audit', { token: tokens.viewer });
    await privately(404, 'GET', `${orders}/${crypto.randomUUID()}`, { token });
    await privately(404, 'GET', `/v1/audit/${crypto.randomUUID()}`, { token });
    await privately(400, 'POST', orders, { token, body: { title: 5 } });
  });

  it('leaves the public OpenAPI document cacheable', async () => {
    const document = await send(server.url, 'GET', '/v1/openapi.json');
    expect(document.status).toBe(200);
    expect(document.headers.get('cache-control')).toBeNull();
  });
});
