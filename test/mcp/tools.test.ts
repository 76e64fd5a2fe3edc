/**
 * The 19 tools through the official SDK client over real HTTP: exact names, each tool with valid
 * and invalid arguments, `content[1]` equal to the REST twin, `structuredContent` valid against
 * the listed `outputSchema` (compiled with the SDK's own Ajv validator).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { connectClient, rest, startHost, type TestHost } from './support.ts';

const SPECIFIED_TOOLS = [
  'get_manifest_schema',
  'get_entity_definition_schema',
  'get_page_schema',
  'get_capability_schema',
  'list_primitives',
  'get_primitive_contract',
  'list_examples',
  'get_example_manifest',
  'get_primitive_examples',
  'scaffold_primitive',
  'validate_primitive_props',
  'recommend_manifest_structure',
  'suggest_page_set_for_entities',
  'suggest_relations',
  'explain_validation_errors',
  'validate_manifest',
  'validate_entity',
  'validate_page',
  'normalize_manifest',
];

let host: TestHost;
let client: Client;
let tools: Map<string, Tool>;
let crm: Record<string, unknown>;
const ajv = new AjvJsonSchemaValidator();

beforeAll(async () => {
  host = await startHost();
  client = await connectClient(host.mcpUrl);
  tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
  crm = (await rest(`${host.url}/api/examples/crm-manifest`)).body;
});

afterAll(async () => {
  await client?.close();
  await host?.stop();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult, index: number): string {
  const block = result.content[index];
  if (block?.type !== 'text') throw new Error(`content[${index}] is not text`);
  return block.text;
}

/** Asserts the A19 success shape and returns the data of content[1]. */
function success(name: string, result: CallToolResult): unknown {
  expect(result.isError ?? false, text(result, 0)).toBe(false);
  expect(result.content).toHaveLength(2);
  expect(text(result, 0).length).toBeGreaterThan(0);
  const data = JSON.parse(text(result, 1)) as unknown;
  const check = ajv.getValidator(tools.get(name)!.outputSchema as never)(result.structuredContent);
  expect(check.errorMessage, `${name} structuredContent vs outputSchema`).toBeUndefined();
  expect(check.valid).toBe(true);
  return data;
}

function failure(result: CallToolResult, mention: RegExp): void {
  expect(result.isError).toBe(true);
  expect(text(result, 0)).toMatch(mention);
}

describe('tools/list', () => {
  it('lists exactly the 19 specified tools, in order, each with description, input and output schema', async () => {
    const listed = (await client.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(SPECIFIED_TOOLS);
    for (const tool of listed) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
  });

  it('declares the specified parameters with the right required members', () => {
    const params = (name: string) => Object.keys(tools.get(name)!.inputSchema.properties ?? {}).sort();
    const required = (name: string) => [...(tools.get(name)!.inputSchema.required ?? [])].sort();
    expect(params('get_manifest_schema')).toEqual(['version']);
    expect(params('get_page_schema')).toEqual(['pageType']);
    expect(params('get_capability_schema')).toEqual(['capabilityType']);
    expect(params('list_primitives')).toEqual(['category', 'source']);
    expect(required('get_primitive_contract')).toEqual(['primitive']);
    expect(params('list_examples')).toEqual([]);
    expect(required('get_example_manifest')).toEqual(['example']);
    expect(params('get_primitive_examples')).toEqual(['key', 'version']);
    expect(required('get_primitive_examples')).toEqual(['key']);
    expect(params('scaffold_primitive')).toEqual(['category', 'description', 'label', 'name', 'props']);
    expect(required('scaffold_primitive')).toEqual(['label', 'name']);
    expect(params('validate_primitive_props')).toEqual(['key', 'props', 'version']);
    expect(required('validate_primitive_props')).toEqual(['key', 'props']);
    expect(required('recommend_manifest_structure')).toEqual(['goal']);
    expect(required('suggest_page_set_for_entities')).toEqual(['entities']);
    expect(required('suggest_relations')).toEqual(['entities']);
    expect(required('explain_validation_errors')).toEqual(['errors']);
    expect(required('validate_manifest')).toEqual(['manifest']);
    expect(required('validate_entity')).toEqual(['entity']);
    expect(required('validate_page')).toEqual(['page']);
    expect(required('normalize_manifest')).toEqual(['manifest']);
  });
});

describe('discovery tools', () => {
  it.each([
    ['get_manifest_schema', {}, '/api/schemas/manifest'],
    ['get_manifest_schema', { version: 'v1alpha1' }, '/api/schemas/manifest?version=v1alpha1'],
    ['get_entity_definition_schema', { version: 'latest' }, '/api/schemas/entity?version=latest'],
    ['get_page_schema', {}, '/api/schemas/page'],
    ['get_page_schema', { pageType: 'entity-list' }, '/api/schemas/page?type=entity-list'],
    ['get_capability_schema', {}, '/api/schemas/capability'],
    ['get_capability_schema', { capabilityType: 'transition' }, '/api/schemas/capability?type=transition'],
  ])('%s %j equals GET %s, byte for byte', async (name, args, path) => {
    const result = await call(name, args);
    const data = success(name, result);
    const twin = await fetch(`${host.url}${path}`);
    expect(twin.status).toBe(200);
    expect(text(result, 1)).toBe(await twin.text());
    expect(result.structuredContent).toEqual(data);
  });

  it.each([
    ['get_manifest_schema', { version: 'v9' }, /latest, v1alpha1[\s\S]*get_manifest_schema without/],
    ['get_entity_definition_schema', { version: 'v9' }, /latest, v1alpha1[\s\S]*get_entity_definition_schema without/],
    ['get_page_schema', { pageType: 'wizard' }, /entity-list[\s\S]*get_page_schema without `pageType`/],
    ['get_capability_schema', { capabilityType: 'teleport' }, /transition[\s\S]*get_capability_schema without/],
    ['get_page_schema', { pageType: 42 }, /Input validation error/],
  ])('%s %j is an isError result naming the valid values', async (name, args, mention) => {
    failure(await call(name, args), mention);
  });
});

describe('registry tools', () => {
  it('list_primitives wraps the REST array in { primitives } and filters like REST', async () => {
    for (const [args, query] of [
      [{}, ''],
      [{ category: 'input' }, '?category=input'],
      [{ source: 'core' }, '?source=core'],
    ] as const) {
      const result = await call('list_primitives', args);
      const data = success('list_primitives', result);
      expect(data).toEqual((await rest(`${host.url}/api/primitives${query}`)).body);
      expect(result.structuredContent).toEqual({ primitives: data });
    }
    expect((success('list_primitives', await call('list_primitives', {})) as unknown[]).length).toBe(30);
  });

  it('list_primitives refuses an unknown category or source with the valid values', async () => {
    failure(await call('list_primitives', { category: 'gadgets' }), /collection[\s\S]*list_primitives/);
    failure(await call('list_primitives', { source: 'vendor' }), /core[\s\S]*list_primitives/);
  });

  it('get_primitive_contract equals GET /api/primitives/{key}; an unknown key points to list_primitives', async () => {
    const data = success('get_primitive_contract', await call('get_primitive_contract', { primitive: 'form' }));
    expect(data).toEqual((await rest(`${host.url}/api/primitives/form`)).body);
    failure(await call('get_primitive_contract', { primitive: 'hologram' }), /list_primitives/);
    failure(await call('get_primitive_contract', {}), /Input validation error/);
  });

  it('list_examples wraps GET /api/examples in { examples }', async () => {
    const result = await call('list_examples', {});
    const data = success('list_examples', result);
    expect(data).toEqual((await rest(`${host.url}/api/examples`)).body);
    expect(result.structuredContent).toEqual({ examples: data });
  });

  it('get_example_manifest equals GET /api/examples/{key}; an unknown key points to list_examples', async () => {
    const data = success('get_example_manifest', await call('get_example_manifest', { example: 'crm-manifest' }));
    expect(data).toEqual(crm);
    failure(await call('get_example_manifest', { example: 'spaceship' }), /list_examples/);
    failure(await call('get_example_manifest', { example: '' }), /Input validation error/);
  });
});

describe('primitive tools', () => {
  it('get_primitive_examples works for a core primitive; unknown keys point to list_primitives', async () => {
    const data = success('get_primitive_examples', await call('get_primitive_examples', { key: 'form' })) as {
      key: string;
      examples: Array<{ props: Record<string, unknown> }>;
    };
    expect(data.key).toBe('form');
    expect(data.examples.length).toBeGreaterThan(0);
    failure(await call('get_primitive_examples', { key: 'hologram' }), /list_primitives/);
  });

  it('validate_primitive_props accepts the first example and reports bad props as data, not isError', async () => {
    const examples = JSON.parse(text(await call('get_primitive_examples', { key: 'form' }), 1)) as {
      examples: Array<{ props: Record<string, unknown> }>;
    };
    const good = success('validate_primitive_props', await call('validate_primitive_props', { key: 'form', props: examples.examples[0]!.props }));
    expect(good).toEqual({ valid: true, errors: [] });
    const bad = success('validate_primitive_props', await call('validate_primitive_props', { key: 'form', props: { fields: 'nope' } })) as {
      valid: boolean;
    };
    expect(bad.valid).toBe(false);
    failure(await call('validate_primitive_props', { key: 'hologram', props: {} }), /list_primitives/);
    failure(await call('validate_primitive_props', { key: 'form' }), /Input validation error/);
  });

  it('scaffold_primitive returns contract and files and writes nothing without a project folder', async () => {
    const data = success('scaffold_primitive', await call('scaffold_primitive', { name: 'price-tag', label: 'Price tag' })) as {
      contract: { key: string };
      files: unknown[];
      written: boolean;
    };
    expect(data.contract.key).toBe('price-tag');
    expect(data.files.length).toBeGreaterThan(0);
    expect(data.written).toBe(false);
    failure(await call('scaffold_primitive', { name: 'Price Tag', label: 'x' }), /Input validation error/);
    failure(await call('scaffold_primitive', { name: 'price-tag' }), /Input validation error/);
  });
});

describe('guidance tools', () => {
  const entities = [
    { key: 'customer', fields: ['name'] },
    { key: 'invoice', fields: ['customer_id', 'amount'] },
  ];

  it.each([
    ['recommend_manifest_structure', { goal: 'a CRM for a small sales team' }, '/api/guidance/recommend', undefined],
    ['recommend_manifest_structure', { goal: 'three blind mice' }, '/api/guidance/recommend', undefined],
    ['suggest_page_set_for_entities', { entities: ['customer', 'category'] }, '/api/guidance/suggest-pages', undefined],
    ['suggest_relations', { entities }, '/api/guidance/suggest-relations', 'relations'],
    ['explain_validation_errors', { errors: [{ field: 'kind', message: 'Required' }] }, '/api/guidance/explain-errors', 'explanations'],
  ])('%s %j equals POST %s', async (name, args, path, member) => {
    const result = await call(name, args);
    const data = success(name, result);
    const twin = await rest(`${host.url}${path}`, args);
    expect(twin.status).toBe(200);
    expect(data).toEqual(twin.body);
    expect(result.structuredContent).toEqual(member ? { [member]: data } : data);
  });

  it.each([
    ['recommend_manifest_structure', { goal: 5 }],
    ['suggest_page_set_for_entities', { entities: 'customer' }],
    ['suggest_relations', { entities: [{ fields: [] }] }],
    ['explain_validation_errors', { errors: [{ field: 'x' }] }],
  ])('%s refuses %j', async (name, args) => {
    failure(await call(name, args), /Input validation error/);
  });
});

describe('validation tools', () => {
  it.each([
    ['validate_manifest', 'manifest', '/api/validate/manifest'],
    ['normalize_manifest', 'manifest', '/api/validate/normalize'],
  ])('%s on the CRM example equals POST %s', async (name, member, path) => {
    const args = { [member]: crm };
    const result = await call(name, args);
    const data = success(name, result) as { valid: boolean };
    expect(data.valid).toBe(true);
    const twin = await fetch(`${host.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(args) });
    expect(text(result, 1)).toBe(await twin.text());
  });

  it.each([
    ['validate_manifest', { manifest: { kind: 'Cell' } }, '/api/validate/manifest'],
    ['normalize_manifest', { manifest: { kind: 'Cell' } }, '/api/validate/normalize'],
    ['validate_entity', { entity: { key: 'Bad Key' } }, '/api/validate/entity'],
    ['validate_page', { page: { key: 'home' } }, '/api/validate/page'],
  ])('%s reports an invalid document as data (not isError), equal to POST %s', async (name, args, path) => {
    const result = await call(name, args);
    const data = success(name, result) as { valid: boolean; errors: unknown[] };
    expect(data.valid).toBe(false);
    expect(data.errors.length).toBeGreaterThan(0);
    expect(text(result, 0)).toMatch(/explain_validation_errors/);
    expect(data).toEqual((await rest(`${host.url}${path}`, args)).body);
  });

  it('validate_entity and validate_page accept the parts of the CRM example', async () => {
    const spec = crm['spec'] as { entities: unknown[]; pages: unknown[] };
    expect(success('validate_entity', await call('validate_entity', { entity: spec.entities[0] }))).toEqual({ valid: true, errors: [] });
    expect(success('validate_page', await call('validate_page', { page: spec.pages[0] }))).toEqual({ valid: true, errors: [] });
  });

  it.each([
    ['validate_manifest', { manifest: 'not an object' }],
    ['validate_entity', {}],
    ['validate_page', { page: [] }],
    ['normalize_manifest', { manifest: null }],
  ])('%s refuses arguments %j', async (name, args) => {
    failure(await call(name, args), /Input validation error/);
  });
});
