/**
 * The fast path of the Node adapter that reads undici's private body state, and its fallback: the
 * private state is trusted only after a feature test, and a Node whose undici keeps it elsewhere
 * (forced here with key finders that miss) gets the same bytes through the body stream.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bufferedBody, writeResponse } from 'cellgate/adapters/node';
import { createSourceReader, undiciStateKey } from '../../adapters/node/buffered-body.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Serves one answer, built per request by `make`, through `writeResponse`; resolves with what a client received. */
async function served(make: () => Response): Promise<{ status: number; length: string | null; body: string }> {
  const server = createServer((req, res) => void writeResponse(res, make(), { method: req.method }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  return { status: response.status, length: response.headers.get('content-length'), body: await response.text() };
}

describe('the undici body source', () => {
  // Node 20's undici keeps the body source where the feature test looks; Node 24's does not, and
  // there the reader must answer undefined (the stream path), never a wrong body.
  const fastPathExpected = process.versions.node.startsWith('20.');

  it('gives the untouched source where the feature test passes (Node 20), otherwise nothing', () => {
    const source = createSourceReader();
    const got = source(new Response('{"a":"é"}'));
    if (fastPathExpected) expect(got).toBe('{"a":"é"}');
    else expect([undefined, '{"a":"é"}']).toContain(got);
    expect([undefined, '{"b":1}']).toContain(bufferedBody(new Response('{"b":1}')));
    const used = new Response('x');
    used.body?.getReader();
    expect(source(used)).toBeUndefined();
  });

  it('falls back (never a wrong body) when the private state is not where it used to be', () => {
    const missing = createSourceReader(() => null);
    const elsewhere = createSourceReader(() => Symbol('state'));
    // A key that exists but holds something else (here undici's headers list) fails the feature test.
    const otherSlot = createSourceReader((response) => Object.getOwnPropertySymbols(response).find((symbol) => symbol !== undiciStateKey(response)) ?? null);
    for (const source of [missing, elsewhere, otherSlot]) {
      expect(source(new Response('{"a":1}'))).toBeUndefined();
      expect(source(new Response(new Uint8Array([1, 2])))).toBeUndefined();
    }
  });

  it('falls back when reading the state throws', () => {
    const throwing = createSourceReader(() => {
      throw new Error('changed');
    });
    expect(throwing(new Response('x'))).toBeUndefined();
  });

  it('the stream path writes the same status and bytes as the fast path', async () => {
    const text = '{"name":"Zoë","n":[1,2,3]}';
    const fast = await served(() => new Response(text, { status: 201, headers: { 'content-type': 'application/json' } }));
    // A Blob body has no string or bytes source: it takes the path every answer takes without the fast path.
    const stream = await served(() => new Response(new Blob([text]), { status: 201, headers: { 'content-type': 'application/json' } }));
    // With the fast path the length is known up front; the stream path may send it chunked.
    if (fastPathExpected) expect(fast).toEqual({ status: 201, length: String(Buffer.byteLength(text)), body: text });
    expect({ status: stream.status, body: stream.body }).toEqual({ status: fast.status, body: fast.body });
    expect(fast.body).toBe(text);
    for (const answer of [fast, stream]) expect([null, String(Buffer.byteLength(text))]).toContain(answer.length);
  });
});
