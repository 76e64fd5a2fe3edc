/**
 * The node adapter's own duties beyond the conformance suite, on real node:http servers: the URL it
 * builds (proxy headers only when trusted, a fixed origin, a bad Host), the lightweight Request
 * behaving like a Request for the core's helpers, the `onError` hook, `next()`, and a socket that
 * closes before the answer is written.
 */
import { createServer, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CellgateError, createContractHandler, createFetchHandler, type FetchHandler } from 'cellgate';
import { clientAddress } from '../../src/http/client-address.ts';
import { errorResponse, jsonResponse } from '../../src/http/responses.ts';
import { readJsonBody, readTextBody } from '../../src/http/body.ts';
import { toNodeHandler, type NodeAdapterOptions } from 'cellgate/adapters/node';
import type { AdapterServer } from 'cellgate/testing';
import { listen } from './support.ts';

const servers: AdapterServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(handler: FetchHandler, options: NodeAdapterOptions = {}, withNext = false): Promise<string> {
  const adapter = toNodeHandler(handler, options);
  const server = await listen(createServer((req, res) => (withNext ? adapter(req, res, () => res.writeHead(418).end('next')) : adapter(req, res))));
  servers.push(server);
  return server.url;
}

/** Raw GET with chosen headers (fetch would not let us set Host). */
function get(url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });
}

const echoUrl = createFetchHandler(async (request) => jsonResponse({ url: request.url }));

describe('toNodeHandler', () => {
  it('builds the URL from the socket and Host, and from X-Forwarded-* only when trusted', async () => {
    const plain = await serve(echoUrl);
    const forwarded = { host: 'api.example.com:8443', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example.com' };
    expect(JSON.parse(await get(`${plain}/a?b=1`, forwarded)).url).toBe('http://api.example.com:8443/a?b=1');
    const trusted = await serve(echoUrl, { trustProxy: true });
    expect(JSON.parse(await get(`${trusted}/a?b=1`, forwarded)).url).toBe('https://public.example.com/a?b=1');
    const fixed = await serve(echoUrl, { origin: 'https://fixed.example.com/' });
    expect(JSON.parse(await get(`${fixed}/x`, forwarded)).url).toBe('https://fixed.example.com/x');
    expect(JSON.parse(await get(`${plain}/x`, { host: 'bad host/with space' })).url).toBe('http://localhost/x');
  });

  it('hands the core a Request that works with its helpers (headers, URL, JSON body, clone)', async () => {
    const url = await serve(
      createFetchHandler(async (request) => {
        const copy = request.clone();
        const body = await readJsonBody(request);
        return jsonResponse({
          isRequest: request instanceof Request,
          path: new URL(request.url).pathname,
          accept: request.headers.get('ACCEPT'),
          multi: [...request.headers].filter(([name]) => name === 'x-multi'),
          body,
          cloned: await copy.text(),
          aborted: request.signal.aborted,
          peer: clientAddress(request),
        });
      }),
    );
    const response = await fetch(`${url}/json`, {
      method: 'POST',
      headers: [
        ['content-type', 'application/json'],
        ['accept', 'application/json'],
        ['x-multi', 'a'],
        ['x-multi', 'b'],
      ],
      body: '{"n":1}',
    });
    expect(await response.json()).toEqual({
      isRequest: true,
      path: '/json',
      accept: 'application/json',
      multi: [['x-multi', 'a, b']],
      body: { n: 1 },
      cloned: '{"n":1}',
      aborted: false,
      peer: '127.0.0.1',
    });
  });

  it('lets the core read a body whole without a web stream, leaving the request read as after text()', async () => {
    const url = await serve(
      createFetchHandler(async (request) => {
        const before = request.bodyUsed;
        const text = await readTextBody(request, 1 << 20);
        const again = await request.text().then(
          () => 'read twice',
          (error: unknown) => (error as Error).name,
        );
        return jsonResponse({ before, length: text.length, last: text.at(-1), after: request.bodyUsed, again, hasBody: request.body !== null });
      }),
    );
    // A body in many chunks (a streamed request body arrives in several socket reads).
    const chunks = Array.from({ length: 64 }, (_, i) => 'é'.repeat(1000) + String(i % 10));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const response = await fetch(`${url}/read`, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await response.json()).toEqual({ before: false, length: 64 * 1001, last: '3', after: true, again: 'TypeError', hasBody: true });
  });

  it('stops reading a body at the limit (413) and keeps the connection usable', async () => {
    const url = await serve(
      createFetchHandler(async (request) => {
        try {
          return jsonResponse({ length: (await readTextBody(request, 1024)).length });
        } catch (error) {
          return errorResponse(error);
        }
      }),
    );
    const big = await fetch(`${url}/read`, { method: 'POST', body: 'x'.repeat(256 * 1024) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', details: { limit: 1024 } });
    const small = await fetch(`${url}/read`, { method: 'POST', body: 'x'.repeat(1024) });
    expect(await small.json()).toEqual({ length: 1024 });
  });

  it('calls next() for unmatched requests when given one, else answers the core 404 envelope', async () => {
    const nothing = createFetchHandler(async () => undefined);
    const withNext = await serve(nothing, {}, true);
    const fell = await fetch(`${withNext}/anything`);
    expect([fell.status, await fell.text()]).toEqual([418, 'next']);
    const alone = await serve(nothing);
    const missing = await fetch(`${alone}/anything`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'NOT_FOUND' });
  });

  it('reports an adapter-level failure to onError and answers the envelope 500 without internals', async () => {
    const seen: unknown[] = [];
    const url = await serve(
      createFetchHandler(async () => {
        throw new Error('secret detail');
      }),
      { onError: (error) => seen.push(error) },
    );
    const response = await fetch(`${url}/boom`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('secret detail');
    expect(JSON.parse(text)).toMatchObject({ error: 'INTERNAL_ERROR' });
    expect(seen).toHaveLength(1);
    expect((seen[0] as Error).message).toBe('secret detail');
  });

  it('does not crash when the client is gone before the answer is written', async () => {
    let finish: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (finish = resolve));
    const url = await serve(
      createFetchHandler(async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        finish();
        return jsonResponse({ late: true });
      }),
    );
    const controller = new AbortController();
    const pending = fetch(`${url}/slow`, { signal: controller.signal }).catch((error: unknown) => error);
    setTimeout(() => controller.abort(), 30);
    expect(await pending).toBeInstanceOf(Error);
    await answered;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await fetch(`${url}/again`)).status).toBe(200);
  });

  it('reports a disconnect on request.signal even when the signal is first read after it', async () => {
    let seen: (aborted: boolean) => void = () => undefined;
    const observed = new Promise<boolean>((resolve) => (seen = resolve));
    const url = await serve(
      createFetchHandler(async (request) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        seen(request.signal.aborted);
        return jsonResponse({ late: true });
      }),
    );
    const controller = new AbortController();
    const pending = fetch(`${url}/late-signal`, { signal: controller.signal }).catch((error: unknown) => error);
    setTimeout(() => controller.abort(), 30);
    await pending;
    expect(await observed).toBe(true);
    // And a request that completes normally never reports an abort.
    const fine = await serve(createFetchHandler(async (request) => jsonResponse({ aborted: request.signal.aborted })));
    expect(await (await fetch(`${fine}/x`)).json()).toEqual({ aborted: false });
  });

  describe('a client that hangs up mid-body', () => {
    /** Sends `head` and part of a body over a raw socket, then resets the connection. */
    function hangUp(url: string, head: string, partial: string, how: 'reset' | 'end'): void {
      const { port } = new URL(url);
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(`${head}\r\n\r\n${partial}`, () => setTimeout(() => (how === 'reset' ? socket.resetAndDestroy() : socket.end()), 20));
    }

    const declared = 'POST /api/validate/manifest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000';
    const chunked = 'POST /api/validate/manifest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked';

    async function outcomes(count: number, seen: unknown[]): Promise<unknown[]> {
      for (let waited = 0; seen.length < count; waited += 10) {
        if (waited > 5_000) throw new Error(`only ${seen.length} of ${count} requests finished`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return seen;
    }

    it('is a 400 BAD_REQUEST from readTextBody, on the direct read and on the body stream', async () => {
      const seen: unknown[] = [];
      const url = await serve(
        createFetchHandler(async (request) => {
          // `?stream` touches the body stream first, so the core reads it instead of the socket's chunks.
          if (new URL(request.url).search === '?stream') void request.body;
          try {
            await readTextBody(request);
            seen.push('read');
          } catch (error) {
            seen.push(error instanceof CellgateError ? `${error.status} ${error.code}: ${error.message}` : `not a CellgateError: ${String(error)}`);
          }
          return jsonResponse({});
        }),
      );
      hangUp(url, declared, '{"manif', 'reset');
      hangUp(url, declared, '{"manif', 'end');
      hangUp(url, declared.replace('manifest', 'manifest?stream'), '{"manif', 'reset');
      hangUp(url, chunked, '5\r\n{"man\r\nzz\r\n', 'end');
      const expected = '400 BAD_REQUEST: Request body did not arrive whole: the connection closed before its end.';
      expect(await outcomes(4, seen)).toEqual([expected, expected, expected, expected]);
    });

    it('is not reported as an unexpected failure by the contract handler', async () => {
      const failures: unknown[] = [];
      const statuses: number[] = [];
      const contract = createContractHandler({ onError: (error) => failures.push(error) });
      const url = await serve(
        createFetchHandler(async (request) => {
          const response = await contract(request);
          statuses.push(response.status);
          return response;
        }),
      );
      for (let i = 0; i < 5; i++) hangUp(url, declared, '{"manifest":{"apiVers', i % 2 === 0 ? 'reset' : 'end');
      expect(await outcomes(5, statuses)).toEqual([400, 400, 400, 400, 400]);
      expect(failures).toEqual([]);
      // The server still answers.
      const answer = await fetch(`${url}/api/validate/manifest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"manifest":{}}' });
      expect(answer.status).toBe(200);
    });
  });
});
