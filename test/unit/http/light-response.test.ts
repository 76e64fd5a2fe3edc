import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { composeHandlers, createContractHandler, CellgateError } from 'cellgate';
import { errorResponse, jsonResponse, JSON_CONTENT_TYPE } from '../../../src/http/responses.ts';
import { answerFor, cachedJson, isLightResponse, LIGHT_RESPONSES, lightResponse, lightResponseParts, rawJsonResponse } from 'cellgate/adapter-kit';
import { bufferedBody, writeResponse } from 'cellgate/adapters/node';

const light = () => jsonResponse({ a: 1, s: 'é' }, 201);

/** `request`, marked as the Node adapters mark theirs: its adapter writes light responses itself. */
function asksForLight(request: Request): Request {
  return Object.assign(request, { [LIGHT_RESPONSES]: true });
}

describe('who gets a light response', () => {
  // Bun, Deno and workerd serve only their own Response class (a light one got Bun's placeholder
  // page and a Deno 500): a handler hands light answers only to a request that asks for them.
  const handler = composeHandlers(createContractHandler());

  it('a caller of the handler gets a real Response of the runtime, for an answer, a refusal and no route', async () => {
    const answers = [
      await handler(new Request('http://x/health')),
      await handler(new Request('http://x/api/validate/manifest', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' })),
      await handler(new Request('http://x/nowhere')),
      (await handler.match(new Request('http://x/health')))!,
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 400, 404, 200]);
    for (const response of answers) {
      expect(isLightResponse(response)).toBe(false);
      expect(Object.getPrototypeOf(response)).toBe(Response.prototype);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(await answers[0]!.json()).toEqual({ status: 'ok' });
  });

  it('a request marked LIGHT_RESPONSES gets the light form, which an adapter writes directly', async () => {
    const response = await handler(asksForLight(new Request('http://x/health')));
    expect(lightResponseParts(response)?.status).toBe(200);
    expect((await handler(asksForLight(new Request('http://x/nowhere')))).status).toBe(404);
    expect(isLightResponse(await handler(asksForLight(new Request('http://x/nowhere'))))).toBe(true);
  });

  it('answerFor builds the real Response once and passes any other Response through', () => {
    const response = light();
    const real = answerFor(undefined, response);
    expect(Object.getPrototypeOf(real)).toBe(Response.prototype);
    expect(answerFor(new Request('http://x/'), response)).toBe(real);
    expect(answerFor(asksForLight(new Request('http://x/')), response)).toBe(response);
    const plain = new Response('x');
    expect(answerFor(undefined, plain)).toBe(plain);
  });
});

describe('light responses', () => {
  it('are instances of Response with cheap status, ok, statusText and headers', () => {
    const response = light();
    expect(response).toBeInstanceOf(Response);
    expect(Object.prototype.toString.call(response)).toBe('[object Response]');
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.statusText).toBe('');
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(jsonResponse({}, 404).ok).toBe(false);
    // Reading status and headers does not build the real Response.
    expect(lightResponseParts(response)).toEqual({
      status: 201,
      headers: [
        ['content-type', JSON_CONTENT_TYPE],
        ['x-content-type-options', 'nosniff'],
      ],
      body: '{"a":1,"s":"é"}',
    });
  });

  it('text(), json(), arrayBuffer() and blob() behave like a real Response', async () => {
    await expect(light().text()).resolves.toBe('{"a":1,"s":"é"}');
    await expect(light().json()).resolves.toEqual({ a: 1, s: 'é' });
    expect(new TextDecoder().decode(await light().arrayBuffer())).toBe('{"a":1,"s":"é"}');
    const blob = await light().blob();
    expect(blob.type).toBe((await new Response('', { headers: { 'content-type': JSON_CONTENT_TYPE } }).blob()).type);
    expect(await blob.text()).toBe('{"a":1,"s":"é"}');
  });

  it('body stream, bodyUsed, type, url, redirected match a real Response', async () => {
    const response = light();
    const real = new Response('{"a":1,"s":"é"}', { status: 201, headers: { 'content-type': JSON_CONTENT_TYPE } });
    expect(response.bodyUsed).toBe(false);
    expect(response.body).toBeInstanceOf(ReadableStream);
    expect(response.body).toBe(response.body);
    expect([response.type, response.url, response.redirected]).toEqual([real.type, real.url, real.redirected]);
    // Once materialised, the adapters take the general path.
    expect(lightResponseParts(response)).toBeUndefined();
    const text = await new Response(response.body).text();
    expect(text).toBe('{"a":1,"s":"é"}');
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
  });

  it('clone() gives an independent real copy', async () => {
    const response = light();
    const copy = response.clone();
    expect(copy).toBeInstanceOf(Response);
    expect(copy.status).toBe(201);
    await expect(copy.json()).resolves.toEqual({ a: 1, s: 'é' });
    await expect(response.text()).resolves.toBe('{"a":1,"s":"é"}');
  });

  it('header mutations are kept, also after materialising', async () => {
    const response = rawJsonResponse('[1]', 200, { 'x-one': '1' });
    response.headers.set('x-two', '2');
    response.headers.append('set-cookie', 'a=1');
    response.headers.append('set-cookie', 'b=2');
    expect(lightResponseParts(response)?.headers).toEqual([
      ['content-type', JSON_CONTENT_TYPE],
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['x-content-type-options', 'nosniff'],
      ['x-one', '1'],
      ['x-two', '2'],
    ]);
    await expect(response.clone().text()).resolves.toBe('[1]');
    expect(response.headers.get('x-two')).toBe('2');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });

  it('does not share the header list between answers', () => {
    const first = jsonResponse(1);
    first.headers.set('x-mine', 'yes');
    expect(jsonResponse(2).headers.has('x-mine')).toBe(false);
  });

  it('works as the init and body of a new Response (framework copies, Response.json style)', async () => {
    const response = jsonResponse({ ok: true }, 202, { etag: '"1"' });
    const copy = new Response(response.body, response);
    expect(copy.status).toBe(202);
    expect(copy.headers.get('etag')).toBe('"1"');
    expect(copy.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    await expect(copy.json()).resolves.toEqual({ ok: true });
    const viaInit = new Response('x', jsonResponse(null, 203));
    expect(viaInit.status).toBe(203);
    expect(viaInit.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
  });

  it('error responses are light for a request that asks, real otherwise, and keep the error headers', async () => {
    const error = new CellgateError('METHOD_NOT_ALLOWED', 'no', { headers: { allow: 'GET' } });
    const response = errorResponse(error, { request: asksForLight(new Request('http://x/')) });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(lightResponseParts(response)).toBeDefined();
    await expect(response.json()).resolves.toMatchObject({ error: 'METHOD_NOT_ALLOWED' });
    for (const real of [
      errorResponse(error),
      errorResponse(error, { request: new Request('http://x/') }),
      errorResponse(new Error('boom'), { onError() {} }),
    ]) {
      expect(isLightResponse(real)).toBe(false);
      expect(Object.getPrototypeOf(real)).toBe(Response.prototype);
    }
  });

  it('null-body and invalid statuses go to the real constructor', () => {
    expect(() => lightResponse('x', 204, [])).toThrow(TypeError);
    expect(() => jsonResponse({}, 99)).toThrow(RangeError);
    expect(lightResponseParts(new Response('x'))).toBeUndefined();
    const empty = jsonResponse(undefined);
    expect(lightResponseParts(empty)).toBeUndefined();
    expect(empty.body).toBeNull();
    expect(lightResponseParts({})).toBeUndefined();
  });

  it('cached answers share their UTF-8 bytes, and reading one never changes them', async () => {
    const answer = cachedJson(() => ({ s: 'é—ü' }));
    const first = answer();
    const bytes = lightResponseParts(first)?.body;
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes as Uint8Array)).toBe('{"s":"é—ü"}');
    // The same bytes serve the next answer: encoded once.
    expect(lightResponseParts(answer())?.body).toBe(bytes);
    // A consumer that reads (and could write into) the body gets its own copy.
    const read = new Uint8Array(await first.arrayBuffer());
    read.fill(0);
    await expect(answer().json()).resolves.toEqual({ s: 'é—ü' });
    expect(bufferedBody(answer())).toBe(bytes);
  });

  it("use a replaced global Response (a host's lightweight one), with plain-object headers when it can", async () => {
    const Native = globalThis.Response;
    const inits: unknown[] = [];
    class HostResponse extends Native {
      constructor(body?: BodyInit | null, init?: ResponseInit) {
        super(body, init);
        inits.push(init?.headers);
      }
    }
    globalThis.Response = HostResponse;
    try {
      const plain = jsonResponse({ a: 1 }, 201, { etag: '"3"' });
      expect(plain).toBeInstanceOf(HostResponse);
      expect(plain.status).toBe(201);
      await expect(plain.json()).resolves.toEqual({ a: 1 });
      const cached = cachedJson(() => ({ b: 'é' }))();
      expect(cached).toBeInstanceOf(HostResponse);
      await expect(cached.json()).resolves.toEqual({ b: 'é' });
      const cookies = lightResponse('x', 200, [
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ]);
      expect(cookies.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    } finally {
      globalThis.Response = Native;
    }
    expect(inits[0]).toBeInstanceOf(Headers); // extra headers: a Headers object, passed on as it is
    expect(inits[1]).toEqual({ 'content-type': JSON_CONTENT_TYPE, 'x-content-type-options': 'nosniff' }); // a list without repeats: a plain object
    expect(inits[2]).toEqual([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['x-content-type-options', 'nosniff'],
    ]); // repeats: the list
  });

  it('bufferedBody gives the text without building the real Response', () => {
    const response = light();
    expect(bufferedBody(response)).toBe('{"a":1,"s":"é"}');
    expect(lightResponseParts(response)).toBeDefined();
  });
});

describe('writeResponse with a light response', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  async function serve(answer: () => Response, before?: (res: import('node:http').ServerResponse) => void): Promise<string> {
    server = createServer((req, res) => {
      before?.(res);
      void writeResponse(res, answer(), { method: req.method });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('writes status, headers (mutated before writing, cookies apart), length and body', async () => {
    const url = await serve(
      () => {
        const response = jsonResponse({ a: 'é' }, 201, { 'x-one': '1' });
        response.headers.set('x-late', 'yes');
        response.headers.append('set-cookie', 'a=1');
        response.headers.append('set-cookie', 'b=2');
        return response;
      },
      (res) => {
        res.setHeader('x-framework', 'kept');
        res.setHeader('x-one', 'replaced');
      },
    );
    const response = await fetch(url);
    expect(response.status).toBe(201);
    expect(response.headers.get('x-late')).toBe('yes');
    expect(response.headers.get('x-one')).toBe('1');
    expect(response.headers.get('x-framework')).toBe('kept');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength('{"a":"é"}')));
    expect(await response.text()).toBe('{"a":"é"}');
  });

  it('writes shared bytes with their byte length (non-ASCII text)', async () => {
    const answer = cachedJson(() => ({ s: 'é—ü'.repeat(1000) }));
    const url = await serve(() => answer());
    for (let i = 0; i < 2; i++) {
      const response = await fetch(url);
      const expected = JSON.stringify({ s: 'é—ü'.repeat(1000) });
      expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(expected)));
      expect(await response.text()).toBe(expected);
    }
  });

  it('answers HEAD without a body', async () => {
    const url = await serve(() => jsonResponse({ a: 1 }));
    const response = await fetch(url, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(await response.text()).toBe('');
  });

  it('takes the general path once the real Response exists', async () => {
    const url = await serve(() => {
      const response = jsonResponse({ a: 1 });
      void response.body;
      return response;
    });
    const response = await fetch(url);
    expect(await response.json()).toEqual({ a: 1 });
  });
});
