/**
 * Real answers against the published documents: every JSON answer of the handler (success and
 * error) validates against the schema its OpenAPI operation declares, and every example validates
 * against the served JSON Schema. Checked with Ajv (JSON Schema 2020-12), an independent validator.
 */
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { call, handlerWith, json, post } from './support.ts';

const handler = handlerWith();
const doc = await json<Record<string, any>>(call(handler, '/api/openapi.json'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ ...doc, $id: 'urn:cellgate:openapi' });

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Asserts `body` matches the schema of `method path` answer `status`. */
function conforms(method: string, path: string, status: string, body: unknown): void {
  const content = doc.paths[path][method].responses[status]?.content;
  expect(content, `${method} ${path} ${status} documented`).toBeDefined();
  const type = Object.keys(content)[0]!;
  const validate = ajv.getSchema(`urn:cellgate:openapi#/${pointer('paths', path, method, 'responses', status, 'content', type, 'schema')}`)!;
  const ok = validate(body);
  expect(ok, `${method} ${path} ${status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

describe('answers conform to the OpenAPI document', () => {
  it('every GET answer', async () => {
    const examples = await json<Array<{ key: string }>>(call(handler, '/api/examples'));
    const cases: Array<[string, string]> = [
      ['/api/schemas/manifest', '/api/schemas/manifest'],
      ['/api/schemas/entity?version=latest', '/api/schemas/entity'],
      ['/api/schemas/page', '/api/schemas/page'],
      ['/api/schemas/page?type=entity-list', '/api/schemas/page'],
      ['/api/schemas/capability', '/api/schemas/capability'],
      ['/api/schemas/capability?type=transition', '/api/schemas/capability'],
      ['/api/primitives', '/api/primitives'],
      ['/api/primitives?category=layout', '/api/primitives'],
      ['/api/primitives/data-grid', '/api/primitives/{key}'],
      ['/api/primitives/relation-field', '/api/primitives/{key}'],
      ['/api/examples', '/api/examples'],
      ...examples.map(({ key }): [string, string] => [`/api/examples/${key}`, '/api/examples/{key}']),
      ['/api/json-schema', '/api/json-schema'],
      ['/api/json-schema/manifest', '/api/json-schema/manifest'],
      ['/health', '/health'],
      ['/api/openapi.json', '/api/openapi.json'],
    ];
    for (const [url, path] of cases) conforms('get', path, '200', await json(call(handler, url)));
    // The check can fail: a wrong body does not pass.
    expect(() => conforms('get', '/health', '200', { status: 'degraded' })).toThrow();
    expect(() => conforms('get', '/api/primitives/{key}', '200', { key: 'x' })).toThrow();
  });

  it('every POST answer, valid and invalid documents', async () => {
    const crm = await json(call(handler, '/api/examples/crm-manifest'));
    const customer = await json(call(handler, '/api/examples/entities/customer.entity'));
    const cases: Array<[string, unknown]> = [
      ['/api/validate/manifest', { manifest: crm }],
      ['/api/validate/manifest', { manifest: { kind: 'Nope' } }],
      ['/api/validate/entity', { entity: customer }],
      ['/api/validate/page', { page: { key: 'home', type: 'dashboard', title: 'Home', path: '/' } }],
      ['/api/validate/normalize', { manifest: crm }],
      ['/api/validate/normalize', { manifest: {} }],
      ['/api/validate/entity-document', { name: 'Invoice' }],
      ['/api/guidance/recommend', { goal: 'inventory of stock levels in warehouses' }],
      ['/api/guidance/recommend', { goal: 'three wishes' }],
      ['/api/guidance/suggest-pages', { entities: ['customer', 'stock_level'] }],
      ['/api/guidance/suggest-relations', { entities: [{ key: 'invoice', fields: ['customer_id'] }, { key: 'customer' }] }],
      ['/api/guidance/explain-errors', { errors: [{ field: 'spec.mount.landingPage', message: 'landingPage "x" does not reference a valid page key' }] }],
    ];
    for (const [path, body] of cases) conforms('post', path, '200', await json(post(handler, path, body)));
  });

  it('error envelopes', async () => {
    conforms('get', '/api/primitives/{key}', '404', await json(call(handler, '/api/primitives/nope'), 404));
    conforms('get', '/api/schemas/page', '400', await json(call(handler, '/api/schemas/page?type=nope'), 400));
    conforms('post', '/api/validate/manifest', '400', await json(post(handler, '/api/validate/manifest', {}), 400));
    conforms('post', '/api/validate/manifest', '415', await json(post(handler, '/api/validate/manifest', '{}', { 'content-type': 'text/plain' }), 415));
    conforms('post', '/api/validate/manifest', '405', await json(call(handler, '/api/validate/manifest'), 405));
    conforms('post', '/api/validate/manifest', '413', await json(post(handlerWith({ bodyLimit: 10 }), '/api/validate/manifest', { manifest: {} }), 413));
  });
});

describe('documented request examples', () => {
  it('are accepted by their route (200), and the validation examples are valid documents', async () => {
    const withExamples = Object.entries<Record<string, any>>(doc.paths).filter(
      ([, item]) => item.post?.requestBody?.content['application/json'].example !== undefined,
    );
    expect(withExamples.length).toBeGreaterThanOrEqual(8);
    for (const [path, item] of withExamples) {
      const example = item.post.requestBody.content['application/json'].example;
      const answer = await json(post(handler, path, example));
      if (path.startsWith('/api/validate/')) expect(answer.valid, path).toBe(true);
      if (path === '/api/guidance/recommend') expect(answer.matchedDomain).toBe('crm');
    }
  });

  it('every error status shows an example envelope with a code of that status', () => {
    const validate = doc.paths['/api/validate/manifest'].post.responses;
    expect(Object.keys(validate['400'].content['application/json'].examples).sort()).toEqual(['BAD_REQUEST', 'VALIDATION_ERROR']);
    expect(validate['413'].content['application/json'].examples.PAYLOAD_TOO_LARGE.value.error).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('the served JSON Schema documents', () => {
  it('accept every example and refuse a broken one', async () => {
    const manifestSchema = ajv.compile(await json(call(handler, '/api/json-schema/manifest')));
    const entitySchema = ajv.compile(await json(call(handler, '/api/json-schema/entity')));
    for (const key of ['minimal-manifest', 'crm-manifest']) {
      const manifest = await json(call(handler, `/api/examples/${key}`));
      expect(manifestSchema(manifest), JSON.stringify(manifestSchema.errors?.slice(0, 3))).toBe(true);
    }
    for (const key of ['entities/customer.entity', 'entities/invoice.entity']) {
      expect(entitySchema(await json(call(handler, `/api/examples/${key}`)))).toBe(true);
    }
    expect(manifestSchema({ apiVersion: 'platform/v1alpha1', kind: 'Cell' })).toBe(false);
  });
});
