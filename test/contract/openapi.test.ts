/**
 * The OpenAPI document: every route present, request bodies equal to the JSON Schema of the zod
 * schemas that check them, every `$ref` resolvable, and the document shape of OpenAPI 3.1.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractRoutes } from '../../src/contract/http/routes.ts';
import { openApiPath } from '../../src/contract/http/route.ts';
import { call, handlerWith, json } from './support.ts';

const handler = handlerWith();
const doc = await json<Record<string, any>>(call(handler, '/api/openapi.json'));

/** Replaces every `$ref` by its target (components or local $defs) and drops ids, for comparison. */
function deref(schema: unknown, root: Record<string, any>, defs: Record<string, unknown> = {}, depth = 0): unknown {
  if (depth > 40) return '[deep]';
  if (Array.isArray(schema)) return schema.map((item) => deref(item, root, defs, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const object = schema as Record<string, unknown>;
  const localDefs = { ...defs, ...((object.$defs as Record<string, unknown>) ?? {}) };
  if (typeof object.$ref === 'string') {
    const ref = object.$ref;
    const target = ref.startsWith('#/components/schemas/') ? root.components.schemas[ref.slice(21)] : localDefs[ref.replace('#/$defs/', '')];
    expect(target, ref).toBeDefined();
    return deref(target, root, localDefs, depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (['$schema', '$id', 'id', '$defs'].includes(key)) continue;
    out[key] = deref(value, root, localDefs, depth + 1);
  }
  return out;
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with info, servers, paths and components', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(5);
    expect(doc.components.schemas.Error.required).toEqual(['error', 'message']);
  });

  it('lists every route of the handler, including docs, health and MCP', () => {
    const expected = [
      ...contractRoutes.map((route) => `${route.method.toLowerCase()} ${openApiPath(route.path)}`),
      'get /api/docs',
      'get /api/openapi.json',
      'get /api/json-schema/manifest',
      'get /api/json-schema/entity',
      'post /mcp',
    ];
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method} ${path}`));
    expect(documented).toEqual(expect.arrayContaining(expected));
    expect(documented.some((entry) => entry.includes('/assets/'))).toBe(false);
    expect(new Set(documented.map((entry) => (doc.paths[entry.split(' ')[1]!][entry.split(' ')[0]!] as { operationId: string }).operationId)).size).toBe(
      documented.length,
    );
  });

  it('has a summary, tag, 200 answer and error envelope per operation', () => {
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries<Record<string, any>>(item)) {
        expect(operation.summary, `${method} ${path}`).toBeTruthy();
        expect(operation.tags).toHaveLength(1);
        expect(operation.responses['200']).toBeDefined();
        if (path !== '/mcp') expect(operation.responses['500'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    const validate = doc.paths['/api/validate/manifest'].post;
    for (const status of ['400', '413', '415', '405', '500']) expect(validate.responses[status], status).toBeDefined();
  });

  it('documents request bodies with exactly the JSON Schema of the zod schemas that check them', () => {
    const withBody = contractRoutes.filter((route) => route.body);
    expect(withBody).toHaveLength(9);
    for (const route of withBody) {
      const documented = doc.paths[openApiPath(route.path)].post.requestBody.content['application/json'].schema;
      const direct = z.toJSONSchema(route.body!, { io: 'input', unrepresentable: 'any' });
      expect(deref(documented, doc), route.path).toEqual(deref(direct, direct as Record<string, any>));
    }
  });

  it('documents answers with the JSON Schema of the answer schemas', () => {
    for (const route of contractRoutes) {
      const documented = doc.paths[openApiPath(route.path)][route.method.toLowerCase()].responses['200'].content['application/json'].schema;
      const direct = z.toJSONSchema(route.response as z.ZodType, { io: 'output', unrepresentable: 'any' });
      expect(deref(documented, doc), route.path).toEqual(deref(direct, direct as Record<string, any>));
    }
  });

  it('documents query and path parameters', () => {
    const page = doc.paths['/api/schemas/page'].get.parameters;
    expect(page).toEqual([expect.objectContaining({ name: 'type', in: 'query', required: false })]);
    expect((deref(page[0].schema, doc) as { enum: string[] }).enum).toContain('dashboard');
    const version = doc.paths['/api/schemas/manifest'].get.parameters[0];
    expect(version.schema.enum).toEqual(['latest', 'v1alpha1']);
    expect(doc.paths['/api/examples/{key}'].get.parameters).toEqual([expect.objectContaining({ name: 'key', in: 'path', required: true })]);
    expect(doc.paths['/api/primitives'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['category', 'source']);
  });

  it('resolves every $ref in the document', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of new Set(refs)) {
      const target = ref.slice(8, -1);
      expect(target.startsWith('#/components/schemas/'), target).toBe(true);
      expect(doc.components.schemas[target.slice(21)], target).toBeDefined();
    }
  });

  it('is served from memory: the same text every time', async () => {
    const again = await call(handler, '/api/openapi.json').then((r) => r.text());
    expect(again).toBe(JSON.stringify(doc));
  });

  it('docs.extendOpenApi adds to the document once, before it is first served', async () => {
    const seen: Array<Record<string, any>> = [];
    const extended = handlerWith({
      docs: {
        extendOpenApi: (document) => {
          seen.push(document);
          return { ...document, paths: { ...(document.paths as object), '/v1/things': { get: { summary: 'List things' } } } };
        },
      },
    });
    expect(seen).toHaveLength(0); // nothing is built before the first request
    const first = await json<Record<string, any>>(call(extended, '/api/openapi.json'));
    const second = await call(extended, '/api/openapi.json').then((r) => r.text());
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(doc); // it receives the contract API's own document
    expect(first.paths['/v1/things']).toEqual({ get: { summary: 'List things' } });
    expect(Object.keys(first.paths)).toEqual([...Object.keys(doc.paths), '/v1/things']);
    expect(second).toBe(JSON.stringify(first));
  });
});
