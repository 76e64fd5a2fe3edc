/** HTTP mechanics of the contract handler: base path, fall-through, HEAD, 405, CORS, MCP mount, options. */
import { describe, expect, it } from 'vitest';
import { ConfigurationError, createContractHandler } from 'cellgate';
import { ORIGIN, call, envelope, handlerWith, json, post } from './support.ts';

const handler = handlerWith();

describe('routing', () => {
  it('falls through (match → undefined) on paths it does not own, and answers 404 when called directly', async () => {
    expect(await handler.match(new Request(`${ORIGIN}/v1/customers`))).toBeUndefined();
    expect(await handler.match(new Request(`${ORIGIN}/api/unknown`))).toBeUndefined();
    await envelope(call(handler, '/api/unknown'), 404, 'NOT_FOUND');
  });

  it('serves every route under basePath and nothing outside it', async () => {
    const based = handlerWith({ basePath: '/contract/' });
    expect(await json(call(based, '/contract/health'))).toEqual({ status: 'ok' });
    expect(await json(call(based, '/contract/api/primitives'))).toHaveLength(30);
    expect(await json(call(based, '/contract/api/examples/entities/customer.entity'))).toMatchObject({ key: 'customer' });
    expect(await based.match(new Request(`${ORIGIN}/health`))).toBeUndefined();
    expect(await based.match(new Request(`${ORIGIN}/contractx/health`))).toBeUndefined();
    const html = await call(based, '/contract/api/docs').then((r) => r.text());
    expect(html).toContain('/contract/api/docs/assets/swagger-ui.css');
    expect(html).toContain('/contract/api/openapi.json');
    const openapi = await json(call(based, '/contract/api/openapi.json'));
    expect(openapi.servers).toEqual([{ url: '/contract' }]);
  });

  it('answers HEAD for every GET with the headers and no body', async () => {
    for (const path of ['/health', '/api/primitives', '/api/schemas/page?type=dashboard', '/api/docs', '/api/docs/assets/swagger-ui.css']) {
      const response = await call(handler, path, { method: 'HEAD' });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBeTruthy();
      expect(await response.text()).toBe('');
    }
    const missing = await call(handler, '/api/primitives/nope', { method: 'HEAD' });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('');
  });

  it('answers 405 with Allow for a wrong method on a known path', async () => {
    const getOnly = await call(handler, '/api/primitives', { method: 'DELETE' });
    expect(getOnly.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await envelope(getOnly, 405, 'METHOD_NOT_ALLOWED');
    const postOnly = await call(handler, '/api/validate/manifest');
    expect(postOnly.headers.get('allow')).toBe('POST, OPTIONS');
    await envelope(postOnly, 405, 'METHOD_NOT_ALLOWED');
    const put = await call(handler, '/api/examples/crm-manifest', { method: 'PUT', body: '{}' });
    expect(put.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await envelope(put, 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers OPTIONS with 204 and Allow, without CORS headers when CORS is off', async () => {
    const response = await call(handler, '/api/validate/page', { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS', () => {
  it('cors: true allows any origin on answers and preflights', async () => {
    const open = handlerWith({ cors: true });
    const answer = await call(open, '/health', { headers: { origin: 'https://app.example' } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const error = await call(open, '/api/primitives/nope', { headers: { origin: 'https://app.example' } });
    expect(error.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await call(open, '/api/validate/manifest', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
  });

  it('an origin list echoes allowed origins only, with Vary: Origin', async () => {
    const listed = handlerWith({ cors: { origin: ['https://good.example'], credentials: true, exposeHeaders: ['x-correlation-id'] } });
    const good = await call(listed, '/health', { headers: { origin: 'https://good.example' } });
    expect(good.headers.get('access-control-allow-origin')).toBe('https://good.example');
    expect(good.headers.get('access-control-allow-credentials')).toBe('true');
    expect(good.headers.get('access-control-expose-headers')).toBe('x-correlation-id');
    expect(good.headers.get('vary')).toBe('Origin');
    const bad = await call(listed, '/health', { headers: { origin: 'https://evil.example' } });
    expect(bad.headers.get('access-control-allow-origin')).toBeNull();
    expect(bad.status).toBe(200);
  });
});

describe('MCP mount', () => {
  it('mounts the MCP endpoint at /mcp by default (GET is 405 there, stateless transport)', async () => {
    const response = await call(handler, '/mcp');
    expect(response.status).toBe(405);
  });

  it('answers tools/list over POST /mcp', async () => {
    const response = await post(
      handler,
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('validate_manifest');
  });

  it('mcp: false leaves the path to the host; mcp.path moves it', async () => {
    const off = handlerWith({ mcp: false });
    expect(await off.match(new Request(`${ORIGIN}/mcp`, { method: 'POST' }))).toBeUndefined();
    const moved = handlerWith({ mcp: { path: '/agents/mcp' }, basePath: '/c' });
    expect(await moved.match(new Request(`${ORIGIN}/c/mcp`))).toBeUndefined();
    expect((await call(moved, '/c/agents/mcp')).status).toBe(405);
  });
});

describe('errors and options', () => {
  it('turns an unexpected failure into a 500 envelope with a correlation id and calls onError', async () => {
    const seen: unknown[] = [];
    const failing = createContractHandler({
      onError: (error) => seen.push(error),
      docs: {
        assets: async () => {
          throw new Error('disk on fire at /secret/path');
        },
      },
    });
    const body = await envelope(call(failing, '/api/docs/assets/swagger-ui.css'), 500, 'INTERNAL_ERROR');
    expect(body.details?.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(seen).toHaveLength(1);
  });

  it.each([
    [{ basePath: 'api' }, 'options.basePath'],
    [{ basePath: '/a/:b' }, 'options.basePath'],
    [{ bodyLimit: 0 }, 'options.bodyLimit'],
    [{ bodyLimit: 1.5 }, 'options.bodyLimit'],
    [{ cors: 'yes' }, 'options.cors'],
    [{ cors: { origin: 5 } }, 'options.cors.origin'],
    [{ cors: { credentials: true } }, 'options.cors.credentials'],
    [{ mcp: { path: 'mcp' } }, 'options.mcp.path'],
    [{ mcp: { allowedHosts: 'all' } }, 'options.mcp.allowedHosts'],
    [{ docs: { title: '' } }, 'options.docs.title'],
    [{ docs: { extendOpenApi: { paths: {} } } }, 'options.docs.extendOpenApi'],
    [{ onError: 'log' }, 'options.onError'],
    [{ health: 'no' }, 'options.health'],
    [{ basepath: '/x' }, 'options.basepath'],
    [
      { primitives: [{ key: 'data-grid', version: '1.0.0', label: 'Grid', category: 'collection', props: { type: 'object', properties: {} } }] },
      'options.primitives.0',
    ],
  ])('refuses %j at construction with a ConfigurationError naming %s', (options, path) => {
    let error: unknown;
    try {
      createContractHandler(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).path.startsWith(path)).toBe(true);
  });
});
