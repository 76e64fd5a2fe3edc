import { describe, expect, it } from 'vitest';
import { CellgateError } from 'cellgate';
import { readJsonBody } from '../../../src/http/body.ts';

const post = (body: BodyInit | null, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  new Request('http://localhost/x', { method: 'POST', body, headers });

async function failure(promise: Promise<unknown>): Promise<CellgateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CellgateError);
  return error as CellgateError;
}

describe('readJsonBody', () => {
  it('parses any JSON value', async () => {
    await expect(readJsonBody(post('{"a":[1,2]}'))).resolves.toEqual({ a: [1, 2] });
    await expect(readJsonBody(post('"text"'))).resolves.toBe('text');
  });

  it('accepts +json media types and parameters', async () => {
    await expect(readJsonBody(post('1', { 'content-type': 'application/merge-patch+json; charset=utf-8' }))).resolves.toBe(1);
  });

  it('refuses a non-JSON content type with 415', async () => {
    const error = await failure(readJsonBody(post('{}', { 'content-type': 'text/plain' })));
    expect([error.code, error.status]).toEqual(['UNSUPPORTED_MEDIA_TYPE', 415]);
  });

  it('refuses empty and malformed bodies with 400 BAD_REQUEST', async () => {
    expect((await failure(readJsonBody(post('')))).code).toBe('BAD_REQUEST');
    expect((await failure(readJsonBody(post('{"a":')))).code).toBe('BAD_REQUEST');
  });

  it('refuses an oversized streamed body with 413 before reading it all', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024));
        if (pulled > 10_000) controller.close();
      },
    });
    const request = new Request('http://localhost/x', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    const error = await failure(readJsonBody(request, { limit: 4096 }));
    expect([error.code, error.status]).toEqual(['PAYLOAD_TOO_LARGE', 413]);
    expect(pulled).toBeLessThan(20);
  });
});
