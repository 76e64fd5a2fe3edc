/**
 * The router shortcuts may never change an answer: whatever `find` decides (this handler, or "not
 * ours") must be what the router itself decides for the same request. Checked case by case for
 * the tricky spellings and differentially with fast-check over generated paths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPathShortcuts, plainPathOf } from '../../../src/contract/http/path-shortcuts.ts';
import { ANY_METHOD, createPathRouter } from '../../../src/http/path-router.ts';

describe('plainPathOf', () => {
  it('gives the path only when URL parsing would keep it as it is', () => {
    expect(plainPathOf('http://localhost:3000/api/primitives?category=layout')).toBe('/api/primitives');
    expect(plainPathOf('http://[::1]:80/health#top')).toBe('/health');
    expect(plainPathOf('https://a.example/api/openapi.json')).toBe('/api/openapi.json');
    for (const url of ['http://h/api/%70rimitives', 'http://h/api/../health', 'http://h/api/./x', 'http://h/a\\b', 'http://h/é', 'http://h', 'no-scheme']) {
      expect(plainPathOf(url), url).toBeUndefined();
    }
    for (const url of ['http://h/api/primitives', 'http://h/a/..b/c', 'http://h/.well-known/x', 'http://h//api//x/']) {
      const path = plainPathOf(url);
      if (path !== undefined) expect(path).toBe(new URL(url).pathname);
    }
  });
});

/** The same routes in the router (answers name the route) and in a shortcut table. */
function routers(basePath: string) {
  const router = createPathRouter(basePath);
  const named = (name: string) => () => name as unknown as Response;
  const shortcuts = createPathShortcuts<string>(basePath);
  const routes: Array<[string, string]> = [
    ['GET', '/api/primitives'],
    ['HEAD', '/api/primitives'],
    ['GET', '/api/primitives/:key'],
    ['GET', '/api/examples/:key+'],
    ['POST', '/api/validate/manifest'],
    ['GET', '/api/openapi.json'],
    ['GET', '/health'],
  ];
  for (const [method, path] of routes) {
    const name = `${method} ${path}`;
    router.add(method, path, named(name));
    shortcuts.add(method, path, name);
  }
  for (const path of new Set(routes.map(([, path]) => path))) {
    router.add(ANY_METHOD, path, named(`405 ${path}`));
    shortcuts.own(path);
  }
  router.add(ANY_METHOD, '/mcp', named('mcp'));
  shortcuts.own('/mcp');
  return { router, shortcuts };
}

async function agree(basePath: string, method: string, url: string): Promise<void> {
  const { router, shortcuts } = routers(basePath);
  const found = shortcuts.find(method, url);
  if (found === undefined) return;
  const routed = (await router.fetch({ method, url } as unknown as Request)) as unknown as string | undefined;
  expect(found === null ? undefined : found, `${method} ${url}`).toBe(routed);
}

describe('router shortcuts', () => {
  it('take exact static paths and refuse foreign prefixes, as the router would', async () => {
    const { shortcuts } = routers('');
    expect(shortcuts.find('GET', 'http://h/api/primitives?x=1')).toBe('GET /api/primitives');
    expect(shortcuts.find('HEAD', 'http://h/api/primitives')).toBe('HEAD /api/primitives');
    expect(shortcuts.find('GET', 'http://h/v1/workspaces/x/notes')).toBeNull();
    expect(shortcuts.find('GET', 'http://h/apix')).toBeNull();
    // Left to the router: parameters, trailing slashes, other methods, odd spellings.
    expect(shortcuts.find('GET', 'http://h/api/primitives/grid')).toBeUndefined();
    expect(shortcuts.find('GET', 'http://h/api/primitives/')).toBeUndefined();
    expect(shortcuts.find('DELETE', 'http://h/api/primitives')).toBeUndefined();
    expect(shortcuts.find('GET', 'http://h/api/%70rimitives')).toBeUndefined();
    for (const [method, url] of [
      ['GET', 'http://h/api/primitives'],
      ['GET', 'http://h/v1/x'],
      ['POST', 'http://h/mcp/'],
      ['GET', 'http://h/healthz'],
    ]) {
      await agree('', method!, url!);
    }
  });

  it('honour the base path', async () => {
    const { shortcuts } = routers('/platform/');
    expect(shortcuts.find('GET', 'http://h/platform/api/primitives')).toBe('GET /api/primitives');
    expect(shortcuts.find('GET', 'http://h/api/primitives')).toBeNull();
    expect(shortcuts.find('GET', 'http://h/platform')).toBeNull();
  });

  it('never decide differently from the router (generated paths)', async () => {
    const segment = fc.constantFrom(
      'api',
      'primitives',
      'health',
      'mcp',
      'v1',
      'openapi.json',
      'validate',
      'manifest',
      '',
      '.',
      '..',
      '%70',
      'x',
      'platform',
      'a.b',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('', '/platform', '/platform/'),
        fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'),
        fc.array(segment, { maxLength: 5 }),
        fc.constantFrom('', '?a=1', '#f', '/'),
        async (basePath, method, segments, suffix) => {
          await agree(basePath, method, `http://h/${segments.join('/')}${suffix}`);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
