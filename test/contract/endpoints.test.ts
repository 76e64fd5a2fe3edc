/** Every Area A GET endpoint through the bare handler: shapes of docs/contract-conventions.md, docs/decisions/A01.md, docs/decisions/A08.md, docs/decisions/A11.md, docs/decisions/A12.md, docs/decisions/A17.md. */
import { describe, expect, it } from 'vitest';
import { call, envelope, handlerWith, json, post } from './support.ts';

const handler = handlerWith();

describe('schema discovery', () => {
  it.each(['manifest', 'entity', 'page', 'capability'])('GET /api/schemas/%s describes the contract', async (name) => {
    const body = await json(call(handler, `/api/schemas/${name}`));
    expect(body.version).toBe('platform/v1alpha1');
    expect(typeof body.name).toBe('string');
    expect(body.fields.length).toBeGreaterThan(0);
    for (const field of body.fields) {
      expect(Object.keys(field).sort()).toEqual(['description', 'key', 'required', 'type']);
      expect(typeof field.required).toBe('boolean');
    }
    expect(body.semanticRules.every((rule: unknown) => typeof rule === 'string')).toBe(true);
  });

  it('manifest has notes and spec; page has pageTypes; capability has capabilityTypes', async () => {
    const manifest = await json(call(handler, '/api/schemas/manifest'));
    expect(manifest.notes.length).toBeGreaterThan(0);
    expect(manifest.spec.map((f: { key: string }) => f.key)).toEqual(expect.arrayContaining(['mount', 'entities', 'pages', 'navigation', 'roles']));
    const page = await json(call(handler, '/api/schemas/page'));
    expect(page.pageTypes.map((t: { type: string }) => t.type)).toEqual([
      'entity-list',
      'entity-detail',
      'entity-create',
      'entity-edit',
      'dashboard',
      'custom',
    ]);
    const capability = await json(call(handler, '/api/schemas/capability'));
    expect(capability.capabilityTypes.map((t: { type: string }) => t.type)).toEqual(['transition', 'mutation', 'workflow', 'export', 'integration']);
  });

  it('accepts version=latest and version=v1alpha1 with the same body, refuses others with 400 (A1)', async () => {
    const plain = await call(handler, '/api/schemas/manifest').then((r) => r.text());
    expect(await call(handler, '/api/schemas/manifest?version=latest').then((r) => r.text())).toBe(plain);
    expect(await call(handler, '/api/schemas/manifest?version=v1alpha1').then((r) => r.text())).toBe(plain);
    for (const path of ['/api/schemas/manifest?version=v9', '/api/schemas/entity?version=v2']) {
      const error = await envelope(call(handler, path), 400, 'VALIDATION_ERROR');
      expect(error.message).toContain('v1alpha1');
    }
    // A bad value stays refused after good values were answered (and cached).
    await envelope(call(handler, '/api/schemas/manifest?version=v9'), 400, 'VALIDATION_ERROR');
  });

  it('a known type filter answers the singular pageType / capabilityType (A12)', async () => {
    const page = await json(call(handler, '/api/schemas/page?type=dashboard'));
    expect(page.pageType).toMatchObject({ type: 'dashboard', entityRequired: false });
    expect(page).not.toHaveProperty('pageTypes');
    const capability = await json(call(handler, '/api/schemas/capability?type=export'));
    expect(capability.capabilityType).toMatchObject({ type: 'export' });
    expect(capability.capabilityType.requiredFields).toContain('format');
    expect(capability).not.toHaveProperty('capabilityTypes');
  });

  it('an unknown type filter is 400 listing the valid values (A12); an empty one means no filter', async () => {
    const page = await envelope(call(handler, '/api/schemas/page?type=wizard'), 400, 'VALIDATION_ERROR');
    expect(page.message).toContain('entity-list');
    const capability = await envelope(call(handler, '/api/schemas/capability?type=nope'), 400, 'VALIDATION_ERROR');
    expect(capability.message).toContain('integration');
    expect(await json(call(handler, '/api/schemas/page?type='))).toHaveProperty('pageTypes');
  });
});

describe('primitives', () => {
  it('lists the 30 core primitives with the category counts of A8', async () => {
    const list = await json<Array<Record<string, any>>>(call(handler, '/api/primitives'));
    expect(list).toHaveLength(30);
    const counts: Record<string, number> = {};
    for (const entry of list) {
      counts[entry.category] = (counts[entry.category] ?? 0) + 1;
      expect(entry.source).toBe('core');
      expect(entry.bestFor.length).toBeGreaterThan(0);
    }
    expect(counts).toEqual({ collection: 5, input: 7, form: 3, layout: 5, page: 3, display: 4, feedback: 3 });
    expect(list.map((e) => e.key)).not.toContain('toggle');
  });

  it('filters by category and source; unknown values are 400', async () => {
    const inputs = await json<Array<{ category: string }>>(call(handler, '/api/primitives?category=input'));
    expect(inputs).toHaveLength(7);
    expect(await json(call(handler, '/api/primitives?source=core'))).toHaveLength(30);
    expect(await json(call(handler, '/api/primitives?source=custom'))).toEqual([]);
    await envelope(call(handler, '/api/primitives?category=widgets'), 400, 'VALIDATION_ERROR');
    await envelope(call(handler, '/api/primitives?source=vendor'), 400, 'VALIDATION_ERROR');
  });

  it('gets one primitive; an unknown key is 404 NOT_FOUND', async () => {
    const grid = await json(call(handler, '/api/primitives/data-grid'));
    expect(grid).toMatchObject({ key: 'data-grid', category: 'collection', source: 'core' });
    const missing = await envelope(call(handler, '/api/primitives/flux-capacitor'), 404, 'NOT_FOUND');
    expect(missing.message).toContain('flux-capacitor');
  });

  it('serves custom primitives given as options (A9)', async () => {
    const custom = handlerWith({
      primitives: [
        {
          key: 'price-tag',
          version: '1.0.0',
          label: 'Price tag',
          category: 'display',
          props: { type: 'object', properties: { amount: { type: 'number' } } },
        } as never,
      ],
    });
    const list = await json<Array<{ key: string; source: string }>>(call(custom, '/api/primitives?source=custom'));
    expect(list.map((e) => [e.key, e.source])).toEqual([['price-tag', 'custom']]);
    const entry = await json(call(custom, '/api/primitives/price-tag'));
    expect(entry).toMatchObject({ source: 'custom', version: '1.0.0', contract: { key: 'price-tag' } });
    expect(await json(call(custom, '/api/primitives'))).toHaveLength(31);
  });
});

describe('examples', () => {
  it('lists the four examples of the catalog', async () => {
    const list = await json<Array<Record<string, unknown>>>(call(handler, '/api/examples'));
    expect(list.map((e) => e.key)).toEqual(['minimal-manifest', 'crm-manifest', 'entities/customer.entity', 'entities/invoice.entity']);
    for (const entry of list) expect(Object.keys(entry).sort()).toEqual(['description', 'entities', 'format', 'key', 'title']);
  });

  it('answers manifests as parsed JSON without $schema (A11)', async () => {
    const crm = await json(call(handler, '/api/examples/crm-manifest'));
    expect(crm).toMatchObject({ apiVersion: 'platform/v1alpha1', kind: 'Cell' });
    expect(crm).not.toHaveProperty('$schema');
    expect(crm.spec.entities.map((e: { key: string }) => e.key)).toEqual(['customer', 'invoice']);
  });

  it('accepts slash keys literally and percent-encoded, with the same body', async () => {
    const literal = await json(call(handler, '/api/examples/entities/customer.entity'));
    const encoded = await json(call(handler, '/api/examples/entities%2Fcustomer.entity'));
    expect(literal).toEqual(encoded);
    expect(literal).toMatchObject({ key: 'customer', name: 'Customer' });
  });

  it('an unknown key is 404 NOT_FOUND', async () => {
    await envelope(call(handler, '/api/examples/nope'), 404, 'NOT_FOUND');
    await envelope(call(handler, '/api/examples/entities/nope.entity'), 404, 'NOT_FOUND');
    await envelope(call(handler, '/api/examples/..%2F..%2Fpackage.json'), 404, 'NOT_FOUND');
  });

  it('a key that is not valid percent-encoding is 400 BAD_REQUEST', async () => {
    await envelope(call(handler, '/api/examples/%E0%A4%A'), 400, 'BAD_REQUEST');
    await envelope(call(handler, '/api/primitives/%zz'), 400, 'BAD_REQUEST');
  });
});

describe('health, docs and JSON Schema', () => {
  it('GET /health is {status:"ok"}', async () => {
    expect(await json(call(handler, '/health'))).toEqual({ status: 'ok' });
  });

  it('GET /api/json-schema/{manifest,entity} serve application/schema+json', async () => {
    for (const id of ['manifest', 'entity']) {
      const response = await call(handler, `/api/json-schema/${id}`);
      expect(response.headers.get('content-type')).toMatch(/^application\/schema\+json/);
      const schema = (await response.json()) as Record<string, any>;
      expect(schema.$schema).toContain('2020-12');
      expect(schema.$id).toBe(`/api/json-schema/${id}`);
      const top = schema.$ref ? schema.$defs[schema.$ref.replace('#/$defs/', '')] : schema;
      expect(top.type).toBe('object');
    }
    const manifest = await json(call(handler, '/api/json-schema/manifest'));
    const top = manifest.$ref ? manifest.$defs[manifest.$ref.replace('#/$defs/', '')] : manifest;
    expect(top.required).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata', 'spec']));
    const list = await json(call(handler, '/api/json-schema'));
    expect(list.map((e: { id: string }) => e.id)).toEqual(['manifest', 'entity']);
  });

  it('GET /api/docs is an HTML page loading local assets only', async () => {
    const response = await call(handler, '/api/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('/api/docs/assets/swagger-ui-bundle.js');
    expect(html).toContain('/api/openapi.json');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('serves the docs assets with content types and cache headers; unknown assets are 404', async () => {
    const css = await call(handler, '/api/docs/assets/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toContain('max-age');
    expect((await css.text()).length).toBeGreaterThan(1000);
    const js = await call(handler, '/api/docs/assets/swagger-ui-bundle.js');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    await envelope(call(handler, '/api/docs/assets/package.json'), 404, 'NOT_FOUND');
    await envelope(call(handler, '/api/docs/assets/..%2Fpackage.json'), 404, 'NOT_FOUND');
  });

  it('docs: false removes the page but keeps the OpenAPI document; docs.assets replaces the file loader', async () => {
    const off = handlerWith({ docs: false });
    expect(await off.match(new Request('http://localhost/api/docs'))).toBeUndefined();
    await json(call(off, '/api/openapi.json'));
    const custom = handlerWith({ docs: { title: 'My API', assets: async (file) => (file === 'swagger-ui.css' ? 'body{}' : undefined) } });
    expect(await call(custom, '/api/docs/assets/swagger-ui.css').then((r) => r.text())).toBe('body{}');
    await envelope(call(custom, '/api/docs/assets/swagger-ui-bundle.js'), 404, 'NOT_FOUND');
    expect(await call(custom, '/api/docs').then((r) => r.text())).toContain('<title>My API</title>');
  });
});

describe('page paths as the public service reports them', () => {
  it('POST /api/validate/page reports paths relative to the page', async () => {
    const body = await json(post(handler, '/api/validate/page', { page: { key: 'list', type: 'entity-list', title: 'List', path: '/list' } }));
    expect(body).toEqual({ valid: false, errors: [{ field: 'entity', message: 'Page type "entity-list" requires an entity key' }] });
    const noSlash = await json(post(handler, '/api/validate/page', { page: { key: 'list', type: 'dashboard', title: 'List', path: 'list' } }));
    expect(noSlash).toEqual({ valid: false, errors: [{ field: 'path', message: 'path must start with "/"' }] });
  });

  it('POST /api/validate/manifest reports a page path without "/" structurally at spec.pages.<i>.path', async () => {
    const manifest = await json(call(handler, '/api/examples/minimal-manifest'));
    manifest.spec.pages[0].path = manifest.spec.pages[0].path.slice(1);
    expect(await json(post(handler, '/api/validate/manifest', { manifest }))).toEqual({
      valid: false,
      errors: [{ field: 'spec.pages.0.path', message: 'path must start with "/"' }],
    });
  });
});
