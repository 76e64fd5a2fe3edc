/**
 * docs/decisions/A13.md for every POST: bad bodies get the documented status and envelope, never a 5xx;
 * well-formed requests answer 200 whether the document is valid or not.
 */
import { describe, expect, it } from 'vitest';
import { call, envelope, handlerWith, json, post } from './support.ts';

const handler = handlerWith();
const small = handlerWith({ bodyLimit: 64 });

/** Each POST with its required member and a value of the wrong type for it. */
const posts: Array<{ path: string; member?: string; wrongType: unknown; good: unknown }> = [
  { path: '/api/validate/manifest', member: 'manifest', wrongType: { manifest: 'x' }, good: { manifest: {} } },
  { path: '/api/validate/entity', member: 'entity', wrongType: { entity: 5 }, good: { entity: {} } },
  { path: '/api/validate/page', member: 'page', wrongType: { page: [] }, good: { page: { key: 'x' } } },
  { path: '/api/validate/normalize', member: 'manifest', wrongType: { manifest: null }, good: { manifest: {} } },
  { path: '/api/validate/entity-document', wrongType: ['not', 'a', 'document'], good: {} },
  { path: '/api/guidance/recommend', member: 'goal', wrongType: { goal: 5 }, good: { goal: 'a CRM for a small agency' } },
  { path: '/api/guidance/suggest-pages', member: 'entities', wrongType: { entities: 'customer' }, good: { entities: ['customer'] } },
  {
    path: '/api/guidance/suggest-relations',
    member: 'entities',
    wrongType: { entities: 'customer' },
    good: { entities: [{ key: 'invoice', fields: ['customer_id'] }] },
  },
  { path: '/api/guidance/explain-errors', member: 'errors', wrongType: { errors: {} }, good: { errors: [{ field: 'kind', message: 'Required' }] } },
];

describe.each(posts)('POST $path', ({ path, member, wrongType, good }) => {
  it('answers 200 for a well-formed request (valid or not)', async () => {
    const body = await json(post(handler, path, good));
    expect(body).toBeDefined();
  });

  it('malformed JSON → 400 BAD_REQUEST', async () => {
    await envelope(post(handler, path, '{"manifest": '), 400, 'BAD_REQUEST');
  });

  it('empty body → 400 BAD_REQUEST', async () => {
    await envelope(post(handler, path, ''), 400, 'BAD_REQUEST');
    await envelope(handler(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } })), 400, 'BAD_REQUEST');
  });

  it(
    member ? 'missing member → 400 VALIDATION_ERROR with details.fields' : 'no member to miss (the body is the document): {} answers 200 {valid:false}',
    async () => {
      if (!member) {
        expect((await json(post(handler, path, {}))).valid).toBe(false);
        return;
      }
      const error = await envelope(post(handler, path, {}), 400, 'VALIDATION_ERROR');
      expect(error.details?.fields).toEqual([{ path: member, message: 'Required' }]);
    },
  );

  it('member (or body) of the wrong type → 400 VALIDATION_ERROR with details.fields', async () => {
    const error = await envelope(post(handler, path, wrongType), 400, 'VALIDATION_ERROR');
    expect(error.details?.fields.length).toBeGreaterThan(0);
    for (const field of error.details!.fields) {
      expect(field.path).toBe(member ?? 'root');
      expect(field.message).toMatch(/^Expected /);
    }
  });

  it('a top-level JSON value that is not an object → 400 VALIDATION_ERROR', async () => {
    const error = await envelope(post(handler, path, '"text"'), 400, 'VALIDATION_ERROR');
    expect(error.details?.fields[0].path).toBe('root');
  });

  it('wrong content type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    await envelope(post(handler, path, JSON.stringify(good), { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    await envelope(post(handler, path, JSON.stringify(good), {}), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('oversized body → 413 PAYLOAD_TOO_LARGE (configured and default limit)', async () => {
    await envelope(post(small, path, { padding: 'x'.repeat(100) }), 413, 'PAYLOAD_TOO_LARGE');
    const huge = JSON.stringify({ padding: 'x'.repeat(1024 * 1024 + 10) });
    await envelope(post(handler, path, huge), 413, 'PAYLOAD_TOO_LARGE');
    // Without Content-Length (a stream), the limit is enforced while reading.
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(huge));
        controller.close();
      },
    });
    const streamed = new Request(`http://localhost${path}`, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await envelope(handler(streamed), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('validation answers 200 whether valid or not (A13)', () => {
  it('an empty manifest is 200 {valid:false} with Required errors', async () => {
    const result = await json(post(handler, '/api/validate/manifest', { manifest: {} }));
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        { field: 'metadata', message: 'Required' },
        { field: 'spec', message: 'Required' },
      ]),
    );
  });

  it('normalize omits manifest when invalid', async () => {
    const result = await json(post(handler, '/api/validate/normalize', { manifest: { kind: 'Cell' } }));
    expect(result.valid).toBe(false);
    expect(result).not.toHaveProperty('manifest');
  });

  it('a GET with a body-less POST route never 5xx: every POST path answers below 500 for odd input', async () => {
    for (const { path } of posts) {
      for (const body of ['null', '[]', '0', 'true', '{"a":{"b":[1,2,{"c":null}]}}']) {
        const response = await post(handler, path, body);
        expect(response.status, `${path} ${body}`).toBeLessThan(500);
      }
      expect((await call(handler, path, { method: 'POST', body: '\u0000\u0001', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    }
  });
});
