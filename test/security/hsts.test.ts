/**
 * HSTS is the host's decision (docs/security.md, "HSTS is the host's header"): neither handler sends
 * `Strict-Transport-Security`, whatever the scheme the request names, and the header a host sets
 * for its whole origin reaches the client on cellgate's answers too, as docs/security.md shows.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createContractHandler, createGovernedApi, memoryStorage, type FetchHandler } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoEntity, mint, paths, SECRET, serve } from '../governed/support.ts';

const HSTS = 'max-age=31536000; includeSubDomains';

let contract: FetchHandler;
let governed: FetchHandler;
let token = '';

beforeAll(async () => {
  contract = createContractHandler();
  const api = createGovernedApi({ storage: memoryStorage(), auth: { secret: SECRET }, resources: [demoEntity('customer')] as never[] });
  await api.migrate();
  governed = api;
  token = await mint({ roles: ['admin'] });
});

/** Requests of both handlers: a contract answer, MCP, a governed list, and an error of each. */
const requests = (base: string, headers: Record<string, string> = {}) => [
  new Request(`${base}/api/primitives`, { headers }),
  new Request(`${base}/api/primitives/nope`, { headers }),
  new Request(`${base}/mcp`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  }),
  new Request(`${base}${paths.customers()}`, { headers: { ...headers, authorization: `Bearer ${token}` } }),
  new Request(`${base}${paths.customers()}`, { headers }),
];

const handlerOf = (request: Request) => (new URL(request.url).pathname.startsWith('/v1/') ? governed : contract);

describe('HSTS is left to the host', () => {
  it('neither handler sends Strict-Transport-Security, over https:// or behind a proxy that says https', async () => {
    const seen: Array<[string, number, string | null]> = [];
    for (const request of [...requests('https://api.example.test'), ...requests('http://127.0.0.1', { 'x-forwarded-proto': 'https' })]) {
      const response = await handlerOf(request)(request);
      seen.push([request.url, response.status, response.headers.get('strict-transport-security')]);
    }
    expect(seen.map(([, status]) => status)).toEqual([200, 404, 403, 200, 401, 200, 404, 200, 200, 401]); // MCP: 403 for a host name not allowed (DNS-rebinding guard), HSTS or not;
    expect(seen.filter(([, , hsts]) => hsts !== null)).toEqual([]);
  });

  describe('the header a host sets for its origin reaches the client on cellgate answers', () => {
    let close: () => Promise<void>;
    let base = '';
    beforeAll(async () => {
      // The host of docs/security.md: HSTS on every answer of the origin, then cellgate's handlers.
      const contractNode = toNodeHandler(contract);
      const governedNode = toNodeHandler(governed);
      const server = createServer((req, res) => {
        res.setHeader('Strict-Transport-Security', HSTS);
        (req.url?.startsWith('/v1/') ? governedNode : contractNode)(req, res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = () => new Promise((resolve) => server.close(() => resolve()));
    });
    afterAll(() => close?.());

    it('on answers and errors of both handlers, once', async () => {
      for (const request of requests(base)) {
        const response = await fetch(request);
        expect([request.url, response.headers.get('strict-transport-security')]).toEqual([request.url, HSTS]);
        await response.arrayBuffer();
      }
    });
  });

  it('serve() of the test support sends none either (no adapter adds it)', async () => {
    const host = await serve(contract);
    try {
      const response = await fetch(`${host.url}/api/primitives`);
      expect(response.headers.get('strict-transport-security')).toBeNull();
      await response.arrayBuffer();
    } finally {
      await host.close();
    }
  });
});
