/**
 * The 5 documentation resources through the SDK client: names, URIs, media type, and markdown
 * that carries what the REST answers carry (generated from the same sources).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, rest, startHost, type TestHost } from './support.ts';

let host: TestHost;
let client: Client;

beforeAll(async () => {
  host = await startHost({
    primitives: [
      {
        key: 'price-tag',
        version: '1.0.0',
        label: 'Price tag',
        description: 'Shows an amount with its currency.',
        category: 'display',
        props: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      },
    ],
  });
  client = await connectClient(host.mcpUrl);
});

afterAll(async () => {
  await client?.close();
  await host?.stop();
});

async function read(slug: string): Promise<string> {
  const { contents } = await client.readResource({ uri: `platform://docs/${slug}` });
  expect(contents).toHaveLength(1);
  expect(contents[0]!.mimeType).toBe('text/markdown');
  return (contents[0] as { text: string }).text;
}

describe('resources', () => {
  it('lists the 5 specified resources, named platform-*, as text/markdown', async () => {
    const { resources } = await client.listResources();
    const slugs = ['manifest-format', 'entity-schema', 'page-types', 'field-types', 'primitive-catalog'];
    expect(resources.map((r) => r.uri)).toEqual(slugs.map((s) => `platform://docs/${s}`));
    expect(resources.map((r) => r.name)).toEqual(slugs.map((s) => `platform-${s}`));
    for (const resource of resources) expect(resource.mimeType).toBe('text/markdown');
  });

  it('manifest-format carries every field and semantic rule of GET /api/schemas/manifest', async () => {
    const text = await read('manifest-format');
    const { body } = await rest(`${host.url}/api/schemas/manifest`);
    for (const field of [...body.fields, ...body.spec]) expect(text).toContain(`\`${field.key}\``);
    for (const rule of body.semanticRules) expect(text).toContain(rule);
  });

  it('entity-schema and page-types carry the REST descriptions', async () => {
    const entity = await read('entity-schema');
    for (const rule of (await rest(`${host.url}/api/schemas/entity`)).body.semanticRules) expect(entity).toContain(rule);
    const pages = await read('page-types');
    for (const type of (await rest(`${host.url}/api/schemas/page`)).body.pageTypes) expect(pages).toContain(`\`${type.type}\``);
  });

  it('field-types names the 8 field types', async () => {
    const text = await read('field-types');
    for (const type of ['string', 'text', 'number', 'boolean', 'date', 'datetime', 'enum', 'object']) expect(text).toContain(`\`${type}\``);
  });

  it('primitive-catalog lists every primitive of GET /api/primitives, custom ones included', async () => {
    const text = await read('primitive-catalog');
    const { body } = await rest(`${host.url}/api/primitives`);
    expect(body).toHaveLength(31);
    for (const entry of body) expect(text).toContain(`\`${entry.key}\``);
    expect(text).toContain('31 primitives');
    expect(text).toMatch(/`price-tag` \(custom\)/);
  });

  it('an unknown URI is a JSON-RPC error', async () => {
    await expect(client.readResource({ uri: 'platform://docs/nope' })).rejects.toThrow(/not found/);
  });
});
