/**
 * The case groups of the adapter conformance suite. Every case talks to a real server over HTTP;
 * "identical" means status, every header the bare handler sets, and the body bytes.
 */
import { describe, expect, it } from 'vitest';
import type { FetchHandler } from '../http/handler.ts';
import type { AdapterConformanceSkips, ConformanceContext } from './adapter-conformance.ts';
import { abortMidBody, rawGet, sendEndlessBody } from './adapter-conformance-http.ts';
import { connectMcpClient } from './mcp-client.ts';

type Current = () => ConformanceContext;

/** One request of the parity table. */
interface Probe {
  method: string;
  path: string;
  body?: unknown;
}

// Headers a server adds on its own (connection management, date); everything else must match.
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** Sends `probe` to the server and to the bare handler; expects the same answer from both. */
async function expectIdentical(url: string, bare: FetchHandler, probe: Probe, headers: Record<string, string> = {}): Promise<Response> {
  const init = (): RequestInit => ({
    method: probe.method,
    headers: probe.body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(probe.body === undefined ? {} : { body: typeof probe.body === 'string' ? probe.body : JSON.stringify(probe.body) }),
  });
  const expected = await bare(new Request(`${new URL(url).origin}${probe.path}`, init()));
  const actual = await fetch(`${url}${probe.path}`, init());
  const label = `${probe.method} ${probe.path}`;
  expect(actual.status, label).toBe(expected.status);
  for (const [name, value] of expected.headers) {
    if (!TRANSPORT_HEADERS.has(name)) expect(actual.headers.get(name), `${label} header ${name}`).toBe(value);
  }
  const [want, got] = await Promise.all([expected.arrayBuffer(), actual.arrayBuffer()]);
  expect(Buffer.from(got).toString('utf8'), label).toBe(Buffer.from(want).toString('utf8'));
  return actual;
}

async function areaAProbes(bare: FetchHandler): Promise<Probe[]> {
  const list = async (path: string) =>
    (await (await bare(new Request(`http://x${path}`))).json()) as { data?: Array<{ key: string }> } | Array<{ key: string }>;
  const keysOf = (value: Awaited<ReturnType<typeof list>>) => (Array.isArray(value) ? value : (value.data ?? [])).map((entry) => entry.key);
  const primitive = keysOf(await list('/api/primitives'))[0] ?? 'data-grid';
  const examples = keysOf(await list('/api/examples'));
  const example = examples[0] ?? 'crm';
  const manifest = (await (await bare(new Request(`http://x/api/examples/${example}`))).json()) as unknown;
  const get = (path: string): Probe => ({ method: 'GET', path });
  const post = (path: string, body: unknown): Probe => ({ method: 'POST', path, body });
  return [
    ...['manifest', 'entity', 'page', 'capability'].map((kind) => get(`/api/schemas/${kind}`)),
    get('/api/schemas/page?type=unknown-type'),
    get('/api/primitives'),
    get('/api/primitives?category=data'),
    get('/api/primitives?category=nope'),
    get(`/api/primitives/${encodeURIComponent(primitive)}`),
    get('/api/primitives/does-not-exist'),
    get('/api/examples'),
    get(`/api/examples/${example}`),
    get('/api/examples/does-not-exist'),
    post('/api/validate/manifest', { manifest }),
    post('/api/validate/manifest', {}),
    post('/api/validate/entity', { key: 'x' }),
    post('/api/validate/page', { type: 'list' }),
    post('/api/validate/normalize', { manifest }),
    post('/api/validate/entity-document', { name: 'X' }),
    post('/api/guidance/recommend', { goal: 'a CRM for our sales team' }),
    post('/api/guidance/suggest-pages', { entities: ['customer', 'invoice'] }),
    post('/api/guidance/suggest-relations', { entities: [{ key: 'invoice', fields: ['customer_id'] }, { key: 'customer' }] }),
    post('/api/guidance/explain-errors', { errors: [{ field: 'entities', message: 'Required' }] }),
    get('/api/docs'),
    get('/api/openapi.json'),
    get('/api/json-schema/manifest'),
    get('/api/json-schema/entity'),
    get('/health'),
    { method: 'DELETE', path: '/api/primitives' },
  ];
}

/** Every Area A endpoint answers exactly as the bare handler; also under a prefix. */
export function areaACases(current: Current, skips: AdapterConformanceSkips): void {
  describe('Area A endpoints', () => {
    it('answer every endpoint identically to the bare handler (status, headers, body bytes)', async () => {
      const { url, bare } = current();
      for (const probe of await areaAProbes(bare)) await expectIdentical(url, bare, probe);
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const { url, bare } = current();
      const response = await fetch(`${url}/health`, { method: 'HEAD' });
      const expected = await bare(new Request('http://x/health', { method: 'HEAD' }));
      expect(response.status).toBe(expected.status);
      expect(response.headers.get('content-type')).toBe(expected.headers.get('content-type'));
      expect(await response.text()).toBe('');
    });

    it.skipIf(Boolean(skips.prefix))(`works mounted under a prefix with the core's basePath${skips.prefix ? ` (skipped: ${skips.prefix})` : ''}`, async () => {
      const { prefixed } = current();
      for (const path of ['/platform/health', '/platform/api/primitives', '/platform/api/schemas/entity']) {
        await expectIdentical(prefixed!.url, prefixed!.bare, { method: 'GET', path });
      }
      await expectIdentical(prefixed!.url, prefixed!.bare, { method: 'POST', path: '/platform/api/validate/manifest', body: {} });
    });

    it.skipIf(Boolean(skips.fallThrough))(`lets the host answer its own routes${skips.fallThrough ? ` (skipped: ${skips.fallThrough})` : ''}`, async () => {
      const { url } = current();
      const own = await fetch(`${url}/__host/own`);
      expect(own.status).toBe(200);
      expect(await own.text()).toBe('host route');
      expect((await fetch(`${url}/health`)).status).toBe(200);
    });
  });
}

/** Create, read, list, PATCH with If-Match, rollback, DELETE of a governed resource. */
export function governedCases(current: Current): void {
  describe('governed resource', () => {
    it('creates, reads, lists, updates with If-Match, rolls back and deletes, with ETags', async () => {
      const { url, governed } = current();
      const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        fetch(`${url}${governed.collection}${path}`, {
          method,
          headers: { ...governed.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const created = await send('POST', '', { title: 'first', body: 'héllo wörld' });
      expect(created.status).toBe(201);
      const etag = created.headers.get('etag');
      expect(etag).toBeTruthy();
      const id = ((await created.json()) as { data: { id: string } }).data.id;

      const read = await send('GET', `/${id}`);
      expect(read.status).toBe(200);
      expect(read.headers.get('etag')).toBe(etag);
      expect(((await read.json()) as { data: { body: string } }).data.body).toBe('héllo wörld');

      const list = await send('GET', '?page=1');
      expect(list.status).toBe(200);
      expect(((await list.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);

      const patched = await send('PATCH', `/${id}`, { title: 'second' }, { 'if-match': etag! });
      expect(patched.status).toBe(200);
      const etag2 = patched.headers.get('etag');
      expect(etag2).toBeTruthy();
      expect(etag2).not.toBe(etag);

      const stale = await send('PATCH', `/${id}`, { title: 'third' }, { 'if-match': etag! });
      expect([409, 412]).toContain(stale.status);
      expect(((await stale.json()) as { error: string }).error).toMatch(/CONFLICT|PRECONDITION_FAILED/);

      const rolled = await send('POST', `/${id}/rollback`, { targetVersion: 1 }, { 'if-match': etag2! });
      expect(rolled.status).toBe(200);
      expect(((await rolled.json()) as { data: { title: string } }).data.title).toBe('first');
      const etag3 = rolled.headers.get('etag')!;

      const deleted = await send('DELETE', `/${id}`, undefined, { 'if-match': etag3 });
      expect([200, 204]).toContain(deleted.status);
      expect((await send('GET', `/${id}`)).status).toBe(404);
    });

    it('carries a list page read in batches and streamed: the bytes of the bare handler, and HEAD without a body', async () => {
      const { url, governed } = current();
      // Ten notes of 500,000 characters: a page of about 5 MB, past one batch (LIST_BATCH_MAX_LENGTH).
      for (let index = 0; index < 10; index += 1) {
        const created = await fetch(`${url}${governed.collection}`, {
          method: 'POST',
          headers: { ...governed.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `batched ${index}`, body: `${index}ü`.repeat(250_000) }),
        });
        expect(created.status).toBe(201);
      }
      const path = `${governed.collection}?pageSize=100&sortBy=createdAt`;
      const headers = { ...governed.auth, 'x-correlation-id': '0a000000-0000-4000-8000-0000000000aa' };
      const viaAdapter = await fetch(`${url}${path}`, { headers });
      const bare = await governed.handler(new Request(`http://127.0.0.1${path}`, { headers }));
      expect(viaAdapter.status).toBe(200);
      expect(bare.headers.get('content-length')).toBeNull();
      const bytes = Buffer.from(await viaAdapter.arrayBuffer());
      expect(bytes.equals(Buffer.from(await bare.arrayBuffer()))).toBe(true);
      expect(viaAdapter.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(viaAdapter.headers.get('cache-control')).toBe('no-store');
      const head = await fetch(`${url}${path}`, { method: 'HEAD', headers });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    });
  });
}

/** The error envelopes the core produces must reach the client unchanged. */
export function errorCases(current: Current): void {
  describe('error envelopes', () => {
    it('answers malformed JSON, a wrong content type and an oversized declared body like the bare handler', async () => {
      const { url, bare } = current();
      await expectIdentical(url, bare, { method: 'POST', path: '/api/validate/manifest', body: '{"broken": ' });
      await expectIdentical(url, bare, { method: 'POST', path: '/api/validate/manifest', body: '' });
      const wrongType = await expectIdentical(url, bare, { method: 'POST', path: '/api/validate/manifest', body: 'x' }, { 'content-type': 'text/plain' });
      expect(wrongType.status).toBe(415);
      const big = await expectIdentical(url, bare, { method: 'POST', path: '/api/validate/manifest', body: `"${'x'.repeat(1024 * 1024 + 10)}"` });
      expect(big.status).toBe(413);
    });

    it('refuses an oversized streamed body with 413 while it is still arriving', async () => {
      const answer = await sendEndlessBody(`${current().url}/api/validate/manifest`, 2 * 1024 * 1024);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
      expect((await fetch(`${current().url}/health`)).status).toBe(200);
    });

    it('turns a failure below the core into the envelope 500 with a correlation id', async () => {
      const response = await fetch(`${current().url}/__probe/throw`);
      expect(response.status).toBe(500);
      const body = (await response.json()) as { error: string; message: string; details: { correlationId: string } };
      expect(body.error).toBe('INTERNAL_ERROR');
      expect(body.message).not.toContain('probe failure');
      expect(body.details.correlationId).toMatch(/^[\w-]{8,}$/);
    });
  });
}

/** What the conversion itself must preserve: query, headers, body, cookies, streams, aborts. */
export function transportCases(current: Current, skips: AdapterConformanceSkips): void {
  describe('conversion', () => {
    it('passes repeated query keys, unicode, several header values and the raw body', async () => {
      const response = await fetch(`${current().url}/__probe/echo?a=1&a=2&q=%C3%A9t%C3%A9%20%F0%9F%9A%80&empty=`, {
        method: 'POST',
        headers: [
          ['content-type', 'application/json'],
          ['x-multi', 'one'],
          ['x-multi', 'two'],
        ],
        body: '{"text":"grüße 🚀"}',
      });
      expect(await response.json()).toMatchObject({
        method: 'POST',
        path: '/__probe/echo',
        query: [
          ['a', '1'],
          ['a', '2'],
          ['q', 'été 🚀'],
          ['empty', ''],
        ],
        multi: 'one, two',
        body: '{"text":"grüße 🚀"}',
      });
    });

    it('hands the core the URL a Request would have: dot segments resolved, characters encoded', async () => {
      // The same target through `new Request` (what the bare handler and every Fetch runtime see).
      for (const target of ['/__probe/x/../echo?q=it%27s', "/__probe/./echo?q=it's", '/__probe/x/%2e%2E/echo?a=<b>']) {
        const expected = new URL(`http://127.0.0.1${target}`);
        const answer = await rawGet(current().url, target);
        expect(answer.status, target).toBe(200);
        const seen = JSON.parse(answer.body) as { target: string };
        expect(seen.target, target).toBe(expected.pathname + expected.search);
      }
    });

    it.skipIf(Boolean(skips.clientAddress))(
      `records the client's address for the core${skips.clientAddress ? ` (skipped: ${skips.clientAddress})` : ''}`,
      async () => {
        const answer = (await (await fetch(`${current().url}/__probe/echo`)).json()) as { peer: string | null };
        expect(answer.peer).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      },
    );

    it('keeps several set-cookie headers apart', async () => {
      const response = await fetch(`${current().url}/__probe/cookies`);
      expect(response.headers.getSetCookie()).toEqual(['a=a1; Path=/; HttpOnly', 'b=b1; Path=/; HttpOnly', 'c=c1; Path=/; HttpOnly']);
    });

    it('streams a response: the first chunk arrives while the handler still holds the rest', async () => {
      const { url, probe } = current();
      const response = await fetch(`${url}/__probe/stream`);
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain('chunk-0;');
      probe.release();
      let text = new TextDecoder().decode(first.value);
      for (let next = await reader.read(); !next.done; next = await reader.read()) text += new TextDecoder().decode(next.value);
      expect(text).toBe('chunk-0;chunk-1;chunk-2;chunk-3;');
    });

    it('cuts the connection when a streamed answer fails half-way, so no truncated body looks complete', async () => {
      const response = await fetch(`${current().url}/__probe/broken`);
      expect(response.status).toBe(200);
      await expect(response.arrayBuffer()).rejects.toThrow();
      expect((await fetch(`${current().url}/health`)).status).toBe(200);
    });

    it('streams a large body completely (backpressure keeps every byte)', async () => {
      const response = await fetch(`${current().url}/__probe/large?chunks=96`);
      expect((await response.arrayBuffer()).byteLength).toBe(96 * 64 * 1024);
    });

    it('aborts request.signal when the client goes away, and keeps serving', async () => {
      const { url, probe } = current();
      const controller = new AbortController();
      const pending = fetch(`${url}/__probe/wait`, { signal: controller.signal }).catch(() => undefined);
      setTimeout(() => controller.abort(), 100);
      await probe.aborted();
      await pending;
      await abortMidBody(`${url}/__probe/echo`);
      expect((await fetch(`${url}/health`)).status).toBe(200);
    });

    it('makes a body the client stopped sending a 400 BAD_REQUEST, not a failure of the server', async () => {
      const { url, probe } = current();
      await abortMidBody(`${url}/__probe/read`);
      expect(await probe.bodyRead()).toBe('400 BAD_REQUEST');
      expect((await fetch(`${url}/health`)).status).toBe(200);
    });

    it.skipIf(Boolean(skips.parsedBody))(
      `accepts a body the framework already parsed${skips.parsedBody ? ` (skipped: ${skips.parsedBody})` : ''}`,
      async () => {
        const { parsed } = current();
        const body = { name: 'ünïcode', nested: { list: [1, 2, 3] } };
        const echoed = await fetch(`${parsed!.url}/__probe/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const answer = (await echoed.json()) as { body: string; contentLength: string };
        expect(JSON.parse(answer.body)).toEqual(body);
        expect(Number(answer.contentLength)).toBe(Buffer.byteLength(answer.body));
        await expectIdentical(parsed!.url, parsed!.bare, { method: 'POST', path: '/api/validate/manifest', body: {} });
        await expectIdentical(parsed!.url, parsed!.bare, { method: 'POST', path: '/api/guidance/recommend', body: { goal: 'a CRM' } });
      },
    );
  });
}

/** MCP over the adapter, with the official SDK client (an optional peer: `mcp-client.ts`). */
export function mcpCases(current: Current): void {
  describe('MCP endpoint', () => {
    it('lists and calls tools through the adapter', async () => {
      const client = await connectMcpClient(new URL(`${current().url}/mcp`), 'adapter-conformance', 'runAdapterConformance');
      try {
        const { tools } = await client.listTools();
        expect(tools.length).toBeGreaterThanOrEqual(19);
        const result = await client.callTool({ name: 'list_primitives', arguments: {} });
        expect(result.isError ?? false).toBe(false);
        expect(JSON.stringify(result.content)).toContain('data-grid');
      } finally {
        await client.close();
      }
    });
  });
}
