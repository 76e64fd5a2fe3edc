/**
 * HEAD on governed paths (RFC 9110 §9.3.2): wherever GET answers (lists, a record, its versions,
 * time-travel reads, the audit list, an audit record, the NDJSON export, the change feed, openapi.json), HEAD answers
 * the same status and headers with no body, over HTTP (the Node adapter) and to a caller of the
 * handler itself (what Bun, Deno and workerd are). `Allow` lists HEAD wherever it lists GET.
 */
import { memoryStorage } from 'cellgate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { governedSetup } from './behaviour.ts';
import { customer, ids, paths, send, serve } from './support.ts';

/** Headers of the connection, not of the answer: a HEAD answer may differ in these. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const answerHeaders = (headers: Headers) => [...headers].filter(([name]) => !TRANSPORT.has(name));

/** The same correlation id on both requests, so every header of the two answers can be compared. */
const CORRELATION = { 'x-correlation-id': '0b000000-0000-4000-8000-000000000001' };

let setup: Awaited<ReturnType<typeof governedSetup>>;
let server: Awaited<ReturnType<typeof serve>>;
/** The GET paths, with the token and headers each is read with. */
let reads: Array<{ name: string; path: string; token?: string; headers?: Record<string, string> }>;

beforeAll(async () => {
  setup = await governedSetup(memoryStorage);
  server = await serve(setup.api);
  const admin = setup.tokens.admin;
  const created = await send(setup.api, 'POST', paths.customers(), { token: admin, body: customer() });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.id as string;
  const audit = await send(setup.api, 'GET', `/v1/audit?resourceId=${id}`, { token: admin });
  const auditId = audit.body.data[0].id as string;
  reads = [
    { name: 'a list', path: paths.customers(), token: admin },
    { name: 'a record', path: `${paths.customers()}/${id}`, token: admin },
    { name: 'a record it may not see (404)', path: `${paths.customers()}/${ids.otherCell}`, token: admin },
    { name: 'a list without a token (401)', path: paths.customers() },
    { name: "a record's versions", path: `${paths.customers()}/${id}/versions`, token: admin },
    { name: 'a record as of an instant', path: `${paths.customers()}/${id}?asOf=2999-01-01T00:00:00Z`, token: admin },
    { name: 'a record at a version', path: `${paths.customers()}/${id}/versions/1`, token: admin },
    { name: "a record's changes", path: `${paths.customers()}/${id}/changes?from=1&to=1`, token: admin },
    { name: 'a list as of an instant', path: `${paths.customers()}?asOf=2999-01-01T00:00:00Z`, token: admin },
    { name: 'the audit list', path: `/v1/audit?resourceId=${id}`, token: admin },
    { name: 'an audit record', path: `/v1/audit/${auditId}`, token: admin },
    { name: 'the audit export', path: `/v1/audit?resourceId=${id}`, token: admin, headers: { accept: 'application/x-ndjson' } },
    { name: 'the change feed', path: '/v1/events', token: admin },
    { name: 'openapi.json', path: '/v1/openapi.json' },
  ];
});

afterAll(() => server?.close());

describe('HEAD on governed paths', () => {
  it('answers the status and headers of GET with no body, over HTTP', async () => {
    for (const read of reads) {
      const options = { ...(read.token === undefined ? {} : { token: read.token }), headers: { ...CORRELATION, ...read.headers } };
      const get = await send(server.url, 'GET', read.path, options);
      const head = await send(server.url, 'HEAD', read.path, options);
      expect(head.status, read.name).toBe(get.status);
      expect(answerHeaders(head.headers), read.name).toEqual(answerHeaders(get.headers));
      expect(head.text, read.name).toBe('');
    }
  });

  it('answers a caller of the handler itself with a bodiless Response', async () => {
    for (const read of reads) {
      const headers = new Headers({ ...CORRELATION, ...read.headers });
      if (read.token !== undefined) headers.set('authorization', `Bearer ${read.token}`);
      const get = await setup.api(new Request(`http://test.local${read.path}`, { headers }));
      await get.arrayBuffer();
      const head = await setup.api(new Request(`http://test.local${read.path}`, { method: 'HEAD', headers }));
      expect(head.status, read.name).toBe(get.status);
      expect(answerHeaders(head.headers), read.name).toEqual(answerHeaders(get.headers));
      expect(head.body, read.name).toBeNull();
    }
  });

  it('lists HEAD beside GET in Allow, and refuses HEAD with no body where GET is not served', async () => {
    const admin = setup.tokens.admin;
    const allow = async (method: string, path: string) => {
      const answer = await send(server.url, method, path, { token: admin });
      expect(answer.status, `${method} ${path}`).toBe(405);
      return answer.headers.get('allow');
    };
    expect(await allow('PUT', paths.customers())).toBe('GET, HEAD, POST');
    expect(await allow('PUT', `${paths.customers()}/${ids.viewer}`)).toBe('GET, HEAD, PATCH, DELETE');
    expect(await allow('DELETE', `${paths.customers()}/${ids.viewer}/versions`)).toBe('GET, HEAD');
    expect(await allow('POST', '/v1/audit')).toBe('GET, HEAD');
    expect(await allow('POST', `/v1/audit/${ids.viewer}`)).toBe('GET, HEAD');
    expect(await allow('POST', '/v1/events')).toBe('GET, HEAD');
    expect(await allow('POST', '/v1/openapi.json')).toBe('GET, HEAD');
    expect(await allow('GET', `${paths.customers()}/${ids.viewer}/rollback`)).toBe('POST');
    const head = await send(server.url, 'HEAD', `${paths.customers()}/${ids.viewer}/rollback`, { token: admin });
    expect([head.status, head.headers.get('allow'), head.text]).toEqual([405, 'POST', '']);
  });

  it("answers HEAD on a path no route owns with the 404's status and headers and no body, to a caller of the handler itself", async () => {
    const get = await setup.api(new Request('http://localhost/nothing-here'));
    const head = await setup.api(new Request('http://localhost/nothing-here', { method: 'HEAD' }));
    expect(get.status).toBe(404);
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([404, get.headers.get('content-type'), '']);
  });
});
