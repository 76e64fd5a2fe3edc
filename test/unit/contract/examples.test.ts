/**
 * The example catalog (docs/decisions/A11.md): YAML sources bundled as text, parsed to JSON with `$schema`
 * dropped and `$ref` entities inlined; every example validates with the contract validators.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CellgateError, getExample, listExamples, normalizeManifest, validateEntity, validateManifest } from 'cellgate';
import { ExampleEntrySchema } from 'cellgate/schemas';
import { exampleFiles } from '../../../src/contract/examples/files.generated.ts';
import { generatedModule, readExampleFiles, renderModule } from '../../../src/contract/examples/generate.ts';

const KEYS = ['minimal-manifest', 'crm-manifest', 'entities/customer.entity', 'entities/invoice.entity'];

/** Every object key anywhere in a JSON value. */
function allKeys(value: unknown, keys = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) allKeys(item, keys);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      keys.add(key);
      allKeys(inner, keys);
    }
  }
  return keys;
}

describe('example catalog', () => {
  it('lists the four examples with key, title, description, entities and format yaml', () => {
    const entries = listExamples();
    expect(entries.map((entry) => entry.key)).toEqual(KEYS);
    for (const entry of entries) {
      expect(ExampleEntrySchema.parse(entry)).toEqual(entry);
      expect(entry.format).toBe('yaml');
      expect(entry.title.length).toBeGreaterThan(3);
      expect(entry.description.length).toBeGreaterThan(20);
    }
    expect(entries.map((entry) => entry.entities)).toEqual([[], ['customer', 'invoice'], ['customer'], ['invoice']]);
  });

  it('the generated module matches the YAML files (run `npx tsx src/contract/examples/generate.ts` after editing them)', () => {
    expect(readFileSync(generatedModule, 'utf8')).toBe(renderModule(readExampleFiles()));
  });

  it('bundles exactly the catalog files, each with a $schema line, and the CRM manifest references the entity files', () => {
    expect(Object.keys(exampleFiles).sort()).toEqual(KEYS.map((key) => `${key}.yaml`).sort());
    for (const text of Object.values(exampleFiles)) expect(text).toMatch(/^\$schema: /m);
    const crm = parse(exampleFiles['crm-manifest.yaml']!) as { spec: { entities: unknown[] } };
    expect(crm.spec.entities).toEqual([{ $ref: './entities/customer.entity.yaml' }, { $ref: './entities/invoice.entity.yaml' }]);
  });
});

describe('getExample', () => {
  it.each(KEYS)('%s comes back as JSON without $schema or $ref, and validates', (key) => {
    const document = getExample(key);
    const keys = allKeys(document);
    expect(keys.has('$schema')).toBe(false);
    expect(keys.has('$ref')).toBe(false);
    const result = key.startsWith('entities/') ? validateEntity(document) : validateManifest(document);
    expect(result).toEqual({ valid: true, errors: [] });
  });

  it('inlines the entity files into the CRM manifest', () => {
    const crm = getExample('crm-manifest') as { apiVersion: string; spec: { entities: unknown[] } };
    expect(crm.apiVersion).toBe('platform/v1alpha1');
    expect(crm.spec.entities).toEqual([getExample('entities/customer.entity'), getExample('entities/invoice.entity')]);
  });

  it('gives entity examples in manifest form (camelCase EntityDefinition)', () => {
    expect(getExample('entities/customer.entity')).toMatchObject({ key: 'customer', name: 'Customer', pluralName: 'Customers' });
    expect(getExample('entities/invoice.entity')).toMatchObject({
      key: 'invoice',
      relations: [{ key: 'customer_id', relation: 'belongs_to', entity: 'customer' }],
    });
  });

  it.each(['minimal-manifest', 'crm-manifest'])('%s normalizes to a manifest that validates again', (key) => {
    const normalized = normalizeManifest(getExample(key));
    if (!normalized.valid) throw new Error(JSON.stringify(normalized.errors));
    expect(validateManifest(normalized.manifest)).toEqual({ valid: true, errors: [] });
  });

  it('returns a fresh copy each time', () => {
    const first = getExample('minimal-manifest') as { metadata: { name: string } };
    first.metadata.name = 'changed';
    expect((getExample('minimal-manifest') as { metadata: { name: string } }).metadata.name).toBe('Minimal Cell');
  });

  it.each(['unknown', 'entities/customer', 'customer.entity', '../crm-manifest'])('refuses %s with NOT_FOUND pointing at list_examples', (key) => {
    let error: unknown;
    try {
      getExample(key);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CellgateError);
    expect(error).toMatchObject({
      code: 'NOT_FOUND',
      message: `Example "${key}" not found. Call list_examples (GET /api/examples) to see the available keys.`,
    });
  });
});
