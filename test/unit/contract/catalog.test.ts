/**
 * The UI primitive catalog: the 30 core entries of docs/decisions/A08.md, their props schemas and examples
 * (A10), custom primitives from options (A9), filters and lookups.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CellgateError, ConfigurationError, createPrimitiveRegistry, type PrimitiveContractInput } from 'cellgate';
import { CorePrimitiveEntrySchema, CustomPrimitiveEntrySchema, PrimitiveDetailSchema } from 'cellgate/schemas';

const EXPECTED: Record<string, string[]> = {
  collection: ['data-grid', 'card-list', 'pagination', 'filter-bar', 'bulk-command-bar'],
  input: ['input', 'textarea', 'select', 'checkbox', 'radio-group', 'date-input', 'relation-field'],
  form: ['form', 'form-field', 'form-section'],
  layout: ['page-shell', 'sidebar', 'toolbar', 'split-pane', 'tabs'],
  page: ['list-page', 'detail-page', 'dashboard-page'],
  display: ['stat-card', 'badge', 'timeline', 'detail-field'],
  feedback: ['toast', 'confirm-dialog', 'empty-state'],
};

/** Runs `fn` and returns what it threw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const priceTag = (version = '1.0.0', extra: Partial<PrimitiveContractInput> = {}): PrimitiveContractInput => ({
  key: 'price-tag',
  version,
  label: 'Price tag',
  description: 'An amount with its currency.',
  category: 'display',
  props: {
    type: 'object',
    properties: {
      amount: { type: 'number', description: 'The amount.' },
      currency: { type: 'string', enum: ['EUR', 'USD'], default: 'EUR' },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['amount'],
  },
  slots: [{ name: 'suffix', allowedModes: ['append'] }],
  ...extra,
});

describe('core catalog', () => {
  const registry = createPrimitiveRegistry();
  const entries = registry.list();

  it('has exactly the 30 keys of docs/decisions/A08.md, in catalog order, without toggle', () => {
    expect(entries).toHaveLength(30);
    expect(entries.map((entry) => entry.key)).toEqual(Object.values(EXPECTED).flat());
    expect(entries.some((entry) => entry.key === 'toggle')).toBe(false);
  });

  it.each(Object.entries(EXPECTED))('category %s holds its keys and nothing else', (category, keys) => {
    const listed = registry.list({ category });
    expect(listed.map((entry) => entry.key)).toEqual(keys);
    expect(listed.every((entry) => entry.category === category)).toBe(true);
  });

  it('gives every entry a key, category, description, bestFor and source core', () => {
    for (const entry of entries) {
      expect(CorePrimitiveEntrySchema.parse(entry)).toEqual(entry);
      expect(entry.source).toBe('core');
      expect(entry.description.length, entry.key).toBeGreaterThan(20);
      expect(entry.bestFor.length, entry.key).toBeGreaterThanOrEqual(1);
      if (entry.avoidWhen) expect(entry.avoidWhen.length, entry.key).toBeGreaterThanOrEqual(1);
    }
    expect(new Set(entries.map((entry) => entry.description)).size).toBe(30);
  });

  it('source=core lists the same 30, source=custom none', () => {
    expect(registry.list({ source: 'core' })).toEqual(entries);
    expect(registry.list({ source: 'custom' })).toEqual([]);
  });

  it.each([
    ['category', { category: 'widgets' }, 'collection, input, form, layout, page, display, feedback'],
    ['source', { source: 'all' }, 'core, custom'],
  ])('refuses an unknown %s with VALIDATION_ERROR listing the valid values', (name, filter, valid) => {
    const error = thrown(() => registry.list(filter)) as CellgateError;
    expect(error).toBeInstanceOf(CellgateError);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain(valid);
    expect(error.details).toEqual({ fields: [{ path: name, message: expect.stringContaining(valid) }] });
  });

  it('treats an empty filter value as no filter', () => {
    expect(registry.list({ category: '', source: '' })).toHaveLength(30);
  });

  it('get returns the entry with the JSON Schema of its props', () => {
    const detail = registry.get('data-grid');
    expect(PrimitiveDetailSchema.parse(detail)).toEqual(detail);
    expect(detail).toMatchObject({ key: 'data-grid', category: 'collection', source: 'core' });
    expect(detail.propsSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['entity', 'columns']), additionalProperties: false });
  });

  it('get of an unknown key is NOT_FOUND pointing at list_primitives', () => {
    const error = thrown(() => registry.get('toggle')) as CellgateError;
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('Primitive "toggle" not found. Call list_primitives (GET /api/primitives) to see the catalog.');
  });

  describe.each(entries.map((entry) => entry.key))('%s props', (key) => {
    const { examples } = registry.examples(key);

    it('has at least one example, and each passes its props schema', () => {
      expect(examples.length).toBeGreaterThanOrEqual(1);
      for (const example of examples) expect(registry.validateProps(key, undefined, example.props), example.name).toEqual({ valid: true, errors: [] });
    });

    it('exports its props schema as a closed JSON Schema object', () => {
      expect(registry.get(key).propsSchema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        additionalProperties: false,
      });
    });

    it('rejects an unknown prop and a prop of the wrong type', () => {
      const props = examples[0]!.props;
      expect(registry.validateProps(key, undefined, { ...props, notAProp: 1 })).toEqual({
        valid: false,
        errors: [{ field: 'props', message: "Unrecognized key(s) in object: 'notAProp'" }],
      });
      const first = Object.keys(props)[0]!;
      const wrong = registry.validateProps(key, undefined, { ...props, [first]: { nested: true } });
      expect(wrong.valid).toBe(false);
      expect(wrong.errors[0]!.field).toBe(`props.${first}`);
    });
  });

  it('reports a missing required prop as Required and a non-object as a type error', () => {
    expect(registry.validateProps('badge', undefined, {})).toEqual({ valid: false, errors: [{ field: 'props.label', message: 'Required' }] });
    expect(registry.validateProps('badge', undefined, 'x')).toEqual({
      valid: false,
      errors: [{ field: 'props', message: 'Expected object, received string' }],
    });
  });

  it('refuses a version for a core primitive', () => {
    const error = thrown(() => registry.examples('badge', '1.0.0')) as CellgateError;
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('core primitive');
  });
});

describe('custom primitives from options', () => {
  it('are listed after the core ones with source custom, version and contract', () => {
    const registry = createPrimitiveRegistry({ custom: [priceTag()] });
    const entries = registry.list();
    expect(entries).toHaveLength(31);
    const custom = entries[30]!;
    expect(CustomPrimitiveEntrySchema.parse(custom)).toEqual(custom);
    expect(custom).toMatchObject({
      key: 'price-tag',
      source: 'custom',
      version: '1.0.0',
      category: 'display',
      label: 'Price tag',
      description: 'An amount with its currency.',
    });
    expect(custom.source === 'custom' && custom.slots).toEqual([{ name: 'suffix', allowedModes: ['append'] }]);
    expect(registry.list({ source: 'custom' })).toEqual([custom]);
    expect(registry.list({ category: 'display' }).map((entry) => entry.key)).toEqual([...EXPECTED.display!, 'price-tag']);
  });

  it('check props against the contract and derive an example from it', () => {
    const registry = createPrimitiveRegistry({ custom: [priceTag()] });
    expect(registry.examples('price-tag')).toEqual({
      key: 'price-tag',
      version: '1.0.0',
      examples: [{ name: 'default', description: expect.any(String), props: { amount: 1, currency: 'EUR' } }],
    });
    expect(registry.validateProps('price-tag', undefined, { amount: 12.5, tags: ['sale'] })).toEqual({ valid: true, errors: [] });
    expect(registry.validateProps('price-tag', undefined, { currency: 'GBP', tags: [1] })).toEqual({
      valid: false,
      errors: [
        { field: 'props.amount', message: 'Required' },
        { field: 'props.currency', message: "Invalid enum value. Expected 'EUR' | 'USD', received 'GBP'" },
        { field: 'props.tags.0', message: 'Expected string, received number' },
      ],
    });
  });

  it('resolve versions: newest by default, a named one on request, NOT_FOUND listing the others', () => {
    const registry = createPrimitiveRegistry({
      custom: [priceTag('1.0.0'), priceTag('1.10.0', { examples: [{ name: 'big', props: { amount: 1000 } }] }), priceTag('1.2.0')],
    });
    expect(registry.list({ source: 'custom' })).toHaveLength(1);
    expect(registry.get('price-tag')).toMatchObject({ version: '1.10.0' });
    expect(registry.examples('price-tag').examples[0]!.name).toBe('big');
    expect(registry.examples('price-tag', '1.0.0')).toMatchObject({ version: '1.0.0', examples: [{ name: 'default' }] });
    const error = thrown(() => registry.validateProps('price-tag', '2.0.0', {})) as CellgateError;
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('Primitive "price-tag" has no version "2.0.0". Available versions: 1.10.0, 1.2.0, 1.0.0.');
  });

  it('may not shadow a core key', () => {
    const error = thrown(() => createPrimitiveRegistry({ custom: [priceTag('1.0.0', { key: 'badge' })] })) as ConfigurationError;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.path).toBe('options.custom.0.key');
    expect(error.message).toContain('core primitive');
  });

  it.each([
    ['a bad version', { version: '1.0' }, 'options.custom.0.version'],
    ['a bad prop type', { props: { type: 'object', properties: { a: { type: 'date' } } } }, 'options.custom.0.props.properties.a.type'],
    ['a required prop that is not declared', { props: { type: 'object', properties: {}, required: ['a'] } }, 'options.custom.0.props.required.0'],
    ['a bad slot mode', { slots: [{ name: 's', allowedModes: ['wrap'] }] }, 'options.custom.0.slots.0.allowedModes.0'],
    ['an unknown member', { colour: 'red' }, 'options.custom.0'],
    ['an example that breaks the props', { examples: [{ name: 'x', props: { amount: 'ten' } }] }, 'options.custom.0.examples.0.props.amount'],
  ])('refuse %s with a ConfigurationError naming the path', (_name, change, path) => {
    const error = thrown(() => createPrimitiveRegistry({ custom: [{ ...priceTag(), ...change } as PrimitiveContractInput] })) as ConfigurationError;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.path).toBe(path);
  });

  it('refuse the same key and version twice, and use the host option name', () => {
    const error = thrown(() => createPrimitiveRegistry({ custom: [priceTag(), priceTag()], optionsPath: 'options.primitives' })) as ConfigurationError;
    expect(error.path).toBe('options.primitives.1.version');
  });
});

describe('runtime neutrality', () => {
  it('no module of the catalog, examples or guidance imports node:* statically (the generator script aside)', () => {
    const root = join(import.meta.dirname, '../../../src/contract');
    const offenders: string[] = [];
    for (const folder of ['catalog', 'catalog/core', 'examples', 'guidance']) {
      for (const name of readdirSync(join(root, folder)).filter((file) => file.endsWith('.ts') && file !== 'generate.ts')) {
        const code = readFileSync(join(root, folder, name), 'utf8');
        if (/^\s*import\s[^;]*?from\s+['"]node:/m.test(code)) offenders.push(`${folder}/${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
