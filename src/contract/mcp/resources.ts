/**
 * The 5 documentation resources (docs/contract-conventions.md, docs/decisions/A19.md): markdown rendered from the same sources
 * as the REST answers (the schema descriptions, the field schema, the primitive registry), so the
 * docs an agent reads can never disagree with what the API validates.
 */
import type { ContractContext } from '../context.ts';
import { describeEntitySchema, describeManifestSchema, describePageSchema } from '../describe/index.ts';
import { MANIFEST_FIELD_TYPES, FieldDefinitionSchema, FieldDisplaySchema } from '../schema/field.ts';
import { CORE_CATEGORIES, PRIMITIVE_CATEGORIES } from '../catalog/schemas.ts';

/** One documentation resource. */
export interface McpResource {
  /** `platform-<slug>`. */
  name: string;
  /** `platform://docs/<slug>`. */
  uri: string;
  title: string;
  description: string;
  /** Markdown text. */
  render(context: ContractContext): string | Promise<string>;
}

interface FieldRow {
  key: string;
  type: string;
  required: boolean;
  description?: string | undefined;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function fieldTable(rows: readonly FieldRow[]): string {
  return [
    '| Field | Type | Required | Description |',
    '|---|---|---|---|',
    ...rows.map((r) => `| \`${r.key}\` | ${cell(r.type)} | ${r.required ? 'yes' : 'no'} | ${cell(r.description ?? '')} |`),
  ].join('\n');
}

const numbered = (items: readonly string[]) => items.map((item, index) => `${index + 1}. ${item}`).join('\n');

function manifestFormat(): string {
  const d = describeManifestSchema();
  return [
    `# ${d.name} (${d.version})`,
    '',
    '## Root fields',
    fieldTable(d.fields),
    '',
    '## Spec fields',
    fieldTable(d.spec),
    '',
    '## Semantic rules',
    numbered(d.semanticRules),
    '',
    '## Notes',
    d.notes.map((n) => `- ${n}`).join('\n'),
  ].join('\n');
}

function entitySchema(): string {
  const d = describeEntitySchema();
  return [`# ${d.name} (${d.version})`, '', '## Fields', fieldTable(d.fields), '', '## Semantic rules', numbered(d.semanticRules)].join('\n');
}

function pageTypes(): string {
  const d = describePageSchema();
  const types = 'pageTypes' in d && Array.isArray(d.pageTypes) ? d.pageTypes : [];
  return [
    `# ${d.name} (${d.version})`,
    '',
    '## Page types',
    '| Type | Entity required | Description |',
    '|---|---|---|',
    ...types.map((t) => `| \`${t.type}\` | ${t.entityRequired ? 'yes' : 'no'} | ${cell(t.description)} |`),
    '',
    '## Page fields',
    fieldTable(d.fields),
    '',
    '## Semantic rules',
    numbered(d.semanticRules),
  ].join('\n');
}

function fieldTypes(): string {
  const properties = Object.entries(FieldDefinitionSchema.shape).map(([key, schema]) => {
    const optional = schema.safeParse(undefined).success;
    return `- \`${key}\`${optional ? '' : ' (required)'}: ${schema.description ?? ''}`;
  });
  const displayTypes = FieldDisplaySchema.shape.type.unwrap().options;
  return [
    '# Field types',
    '',
    `An entity field has a \`type\`, one of: ${MANIFEST_FIELD_TYPES.map((t) => `\`${t}\``).join(', ')}.`,
    '',
    '- `enum` fields list their allowed values in `enumValues` (non-empty).',
    '- `object` fields nest their own `fields` (at most 3 levels deep).',
    '- `text` is long free text; `string` a short single line; `date` a calendar day; `datetime` an instant.',
    '',
    '## Field properties',
    ...properties,
    '',
    '## Display types (`display.type`)',
    displayTypes.map((t) => `\`${t}\``).join(', '),
  ].join('\n');
}

async function primitiveCatalog(context: ContractContext): Promise<string> {
  const entries = await context.registry.list({});
  const sections = PRIMITIVE_CATEGORIES.map((category) => {
    const inCategory = entries.filter((e) => e.category === category);
    if (inCategory.length === 0) return undefined;
    const title = category[0]!.toUpperCase() + category.slice(1);
    return [`## ${title}`, ...inCategory.map((e) => `- \`${e.key}\`${e.source === 'custom' ? ' (custom)' : ''}: ${e.description}`)].join('\n');
  }).filter((s): s is string => s !== undefined);
  return [
    '# UI primitive catalog',
    '',
    `${entries.length} primitives available (${CORE_CATEGORIES.length} core categories). ` +
      'Call get_primitive_contract for one primitive, get_primitive_examples for example props.',
    '',
    sections.join('\n\n'),
  ].join('\n');
}

const resource = (slug: string, title: string, description: string, render: McpResource['render']): McpResource => ({
  name: `platform-${slug}`,
  uri: `platform://docs/${slug}`,
  title,
  description,
  render,
});

/** The 5 resources, in docs/contract-conventions.md order. */
export const mcpResources: readonly McpResource[] = [
  resource('manifest-format', 'Manifest format', 'Root structure, spec fields and semantic rules of a CellManifestV1.', manifestFormat),
  resource('entity-schema', 'Entity schema', 'The EntityDefinition contract and its rules.', entitySchema),
  resource('page-types', 'Page types', 'Page types, page fields and page rules.', pageTypes),
  resource('field-types', 'Field types', 'string, text, number, boolean, date, datetime, enum, object, and field properties.', fieldTypes),
  resource('primitive-catalog', 'Primitive catalog', 'The UI primitives by category, custom ones included.', primitiveCatalog),
];
