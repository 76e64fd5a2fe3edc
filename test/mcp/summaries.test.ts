/**
 * The markdown summaries (`content[0]`) use the public service's wording: the schema heading with
 * the root fields, "Recommended Structure (<domain>)" or the no-match sentence, "Suggested Pages",
 * "Suggested Relations" or the no-relations sentence, "Error Explanations".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startHost, type TestHost } from './support.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startHost();
});

afterAll(async () => {
  await host?.stop();
});

async function summary(name: string, args: Record<string, unknown>): Promise<string> {
  const response = await rpc(host.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  expect(response.body.result.isError ?? false).toBe(false);
  return response.body.result.content[0].text as string;
}

describe('tool summaries', () => {
  it('get_manifest_schema: "## CellManifestV1 Schema", the version and the root fields', async () => {
    const text = await summary('get_manifest_schema', {});
    expect(text).toMatch(/^## CellManifestV1 Schema\n/);
    expect(text).toMatch(/Version: platform\/v1alpha1/);
    expect(text).toMatch(/Root fields: `apiVersion`, `kind`, `metadata`, `spec`\./);
    expect(text).toMatch(/Spec fields: .*`entities`/);
  });

  it.each([
    ['get_entity_definition_schema', /^## EntityDefinition Schema\n/],
    ['get_page_schema', /^## PageDefinition Schema\n/],
    ['get_capability_schema', /^## CapabilityDefinition Schema\n/],
  ])('%s has the "## <Name> Schema" heading', async (name, heading) => {
    expect(await summary(name, {})).toMatch(heading);
  });

  it('recommend_manifest_structure: "## Recommended Structure (crm)", or the no-match sentence', async () => {
    expect(await summary('recommend_manifest_structure', { goal: 'a CRM for a small sales team' })).toMatch(/^## Recommended Structure \(crm\)\n/);
    expect(await summary('recommend_manifest_structure', { goal: 'three blind mice' })).toMatch(
      /^No matching domain template found for this goal\. Try being more specific/,
    );
  });

  it('suggest_page_set_for_entities: "## Suggested Pages" and "Generated N pages for M entities:"', async () => {
    const text = await summary('suggest_page_set_for_entities', { entities: ['customer'] });
    expect(text).toMatch(/^## Suggested Pages\n\nGenerated 4 pages for 1 entities:/);
  });

  it('suggest_relations: "## Suggested Relations", or the no-relations sentence', async () => {
    const found = await summary('suggest_relations', {
      entities: [
        { key: 'customer', fields: ['name'] },
        { key: 'invoice', fields: ['customer_id'] },
      ],
    });
    expect(found).toMatch(/^## Suggested Relations\n/);
    expect(await summary('suggest_relations', { entities: [{ key: 'customer', fields: ['name'] }] })).toBe(
      'No relations suggested. Add more entities or include field keys ending in "_id" for better detection.',
    );
  });

  it('explain_validation_errors: "## Error Explanations"', async () => {
    expect(await summary('explain_validation_errors', { errors: [{ field: 'kind', message: 'Required' }] })).toMatch(/^## Error Explanations\n/);
  });
});
