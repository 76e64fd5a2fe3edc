/**
 * Security headers (issue #12 item 7): every answer of both handlers carries
 * `X-Content-Type-Options: nosniff` — JSON, cached JSON, error envelopes, HEAD and preflight
 * answers, the docs page and its assets, MCP answers — including through `composeHandlers` and
 * `match`. The docs page carries a CSP with `frame-ancestors`. Prototype-named docs assets are 404.
 */
import { describe, expect, it } from 'vitest';
import { composeHandlers, createContractHandler, createGovernedResource, defineEntity, memoryStorage } from 'cellgate';
import { customer, demoEntity, mint, paths, SECRET } from '../../governed/support.ts';

/** The demo customer entity, checked by `defineEntity` as an app would. */
const customerEntity = defineEntity(demoEntity('customer') as Parameters<typeof defineEntity>[0]);

const nosniff = (response: Response | undefined) => response?.headers.get('x-content-type-options');

describe('X-Content-Type-Options: nosniff on every answer', () => {
  const contract = createContractHandler({ cors: true });
  const customers = createGovernedResource({ entity: customerEntity, storage: memoryStorage(), auth: { secret: SECRET } });
  const all = composeHandlers(contract, customers);

  it.each([
    ['GET', '/health'],
    ['GET', '/api/primitives'], // cached JSON
    ['GET', '/api/primitives'], // served again from the cache
    ['HEAD', '/api/primitives'],
    ['OPTIONS', '/api/primitives'],
    ['GET', '/api/docs'],
    ['GET', '/api/docs/assets/docs-init.js'],
    ['GET', '/api/docs/assets/swagger-ui.css'],
    ['GET', '/api/openapi.json'],
    ['GET', '/api/json-schema/manifest'],
    ['PUT', '/api/primitives'], // 405 envelope
    ['POST', '/api/validate/manifest'], // 400 envelope (no body)
    ['GET', paths.customers()], // governed 401
    ['GET', '/mcp'], // MCP transport refusal
  ])('%s %s', async (method, path) => {
    const request = new Request(`http://127.0.0.1${path}`, { method, headers: { origin: 'http://app.example' } });
    expect(nosniff(await all(request))).toBe('nosniff');
    expect(nosniff(await all.match(request.clone()))).toBe('nosniff');
  });

  it('on the 404 envelope of a path no handler owns (match falls through)', async () => {
    const request = new Request('http://127.0.0.1/api/nothing-here');
    expect(await all.match(request)).toBeUndefined();
    expect(nosniff(await all(request))).toBe('nosniff');
  });

  it('on MCP answers from the SDK transport and on governed successes', async () => {
    const mcp = await contract(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      }),
    );
    expect(mcp.status).toBe(200);
    expect(nosniff(mcp)).toBe('nosniff');

    await customers.migrate();
    const token = await mint({ roles: ['admin'] });
    const created = await customers(
      new Request(`http://127.0.0.1${paths.customers()}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(customer()),
      }),
    );
    expect(created.status).toBe(201);
    expect(nosniff(created)).toBe('nosniff');
  });
});

describe('the docs page', () => {
  const handler = createContractHandler({ basePath: '/contract' });

  it('has a CSP its own assets satisfy: no inline script, frame-ancestors none', async () => {
    const page = await handler(new Request('http://127.0.0.1/contract/api/docs'));
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/(^|; )default-src 'none'/);
    expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(csp).toMatch(/(^|; )frame-ancestors 'none'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).not.toMatch(/<script>/);
    expect(html).toContain('src="/contract/api/docs/assets/docs-init.js"');
    expect(html).toContain('data-spec-url="/contract/api/openapi.json"');
    const init = await handler(new Request('http://127.0.0.1/contract/api/docs/assets/docs-init.js'));
    expect(init.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await init.text()).toContain("getAttribute('data-spec-url')");
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('asset "%s" is a 404 envelope, not a 500', async (name) => {
    const response = await handler(new Request(`http://127.0.0.1/contract/api/docs/assets/${name}`));
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toBe('NOT_FOUND');
  });
});
