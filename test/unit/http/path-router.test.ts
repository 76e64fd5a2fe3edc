/**
 * The route-table router that replaced itty-router 6 (deprecated on npm): its patterns match
 * exactly as itty-router's did. The regular expressions below are the ones itty-router 6.0.0
 * built for the same patterns, and the cases are the spellings the contract routes rely on
 * (trailing slashes, percent-encoded and slash keys, base paths, 405 catch-alls after the routes).
 */
import { describe, expect, it } from 'vitest';
import { ANY_METHOD, compilePathPattern, createPathRouter, type PathParams } from '../../../src/http/path-router.ts';

/** A router whose answers name the route and its parameters. */
function table(base: string) {
  const router = createPathRouter(base);
  const named = (name: string) => (_request: Request, params: PathParams) => new Response(`${name} ${JSON.stringify(params)}`);
  router.add('GET', '/api/primitives', named('list'));
  router.add('GET', '/api/primitives/:key', named('primitive'));
  router.add('GET', '/api/examples/:key+', named('example'));
  router.add(ANY_METHOD, '/api/primitives', named('405'));
  router.add(ANY_METHOD, '/mcp', named('mcp'));
  return async (method: string, url: string) => (await router.fetch(new Request(url, { method })))?.text();
}

describe('path patterns', () => {
  it('compile to the regular expressions itty-router 6 built', () => {
    expect(compilePathPattern('', '/api/primitives').source).toBe('^\\/api\\/primitives\\/*$');
    expect(compilePathPattern('', '/api/primitives/:key').source).toBe('^\\/api\\/primitives(\\/(?<key>[^//]+?))\\/*$');
    expect(compilePathPattern('', '/api/examples/:key+').source).toBe('^\\/api\\/examples(\\/(?<key>(.*)?))\\/*$');
    expect(compilePathPattern('/platform/', '/api/openapi.json').source).toBe('^\\/platform\\/api\\/openapi\\.json\\/*$');
    expect(compilePathPattern('//a//', '/health/').source).toBe('^\\/a\\/health\\/*$');
  });
});

describe('createPathRouter', () => {
  it('matches static paths with any number of trailing slashes, and nothing longer', async () => {
    const route = table('');
    expect(await route('GET', 'http://h/api/primitives')).toBe('list {}');
    expect(await route('GET', 'http://h/api/primitives///?x=1')).toBe('list {}');
    expect(await route('GET', 'http://h/api/primitivesx')).toBeUndefined();
    expect(await route('GET', 'http://h/v1/events')).toBeUndefined();
  });

  it('gives one-segment and rest-of-path parameters still percent-encoded', async () => {
    const route = table('');
    expect(await route('GET', 'http://h/api/primitives/data-grid/')).toBe('primitive {"key":"data-grid"}');
    expect(await route('GET', 'http://h/api/primitives/a%2Fb')).toBe('primitive {"key":"a%2Fb"}');
    expect(await route('GET', 'http://h/api/primitives/a/b')).toBeUndefined();
    expect(await route('GET', 'http://h/api/examples/entities/customer.entity')).toBe('example {"key":"entities/customer.entity"}');
    expect(await route('GET', 'http://h/api/examples/entities%2Fcustomer.entity')).toBe('example {"key":"entities%2Fcustomer.entity"}');
    expect(await route('GET', 'http://h/api/examples/crm/')).toBe('example {"key":"crm/"}');
  });

  it('tries routes in order: a method route first, then the catch-all of any method', async () => {
    const route = table('');
    expect(await route('DELETE', 'http://h/api/primitives')).toBe('405 {}');
    expect(await route('HEAD', 'http://h/api/primitives')).toBe('405 {}');
    expect(await route('POST', 'http://h/mcp/')).toBe('mcp {}');
  });

  it('honours the base path, with or without a trailing slash', async () => {
    for (const base of ['/platform', '/platform/']) {
      const route = table(base);
      expect(await route('GET', 'http://h/platform/api/primitives')).toBe('list {}');
      expect(await route('GET', 'http://h/api/primitives')).toBeUndefined();
    }
  });

  it('passes a request on when a handler answers undefined', async () => {
    const router = createPathRouter();
    router.add('GET', '/x', () => undefined);
    router.add(ANY_METHOD, '/x', () => new Response('second'));
    expect(await (await router.fetch(new Request('http://h/x')))!.text()).toBe('second');
  });
});
