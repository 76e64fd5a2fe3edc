/** Discovery tools: the schema descriptions of the manifest contract (REST `GET /api/schemas/*`). */
import { z } from 'zod';
import * as services from '../../services.ts';
import {
  CapabilitySchemaDescriptionSchema,
  EntitySchemaDescriptionSchema,
  ManifestSchemaDescriptionSchema,
  PageSchemaDescriptionSchema,
} from '../../describe/index.ts';
import { CAPABILITY_TYPES, PAGE_TYPES } from '../../schema/index.ts';
import { bullets, defineTool, type ToolAnswer } from '../tool.ts';

const version = z.string().optional().describe('Contract version: `latest` (default) or `v1alpha1`; both return the same description.');

/**
 * Summary shared by the four description tools, in the public service's wording: a
 * "## <Name> Schema" heading, the version, the root fields and the semantic rules.
 */
function describeAnswer(data: { name: string; version: string; fields: Array<{ key: string }>; semanticRules: string[] }, extra: string[] = []): ToolAnswer {
  const lines = [
    `## ${data.name} Schema`,
    '',
    `Version: ${data.version}`,
    `Root fields: ${data.fields.map((f) => `\`${f.key}\``).join(', ')}.`,
    ...extra,
    '',
    `### Semantic rules (${data.semanticRules.length})`,
    bullets(data.semanticRules, 20),
    '',
    'The full description (fields with types, requiredness and meaning; rules) is in the JSON block.',
  ];
  return { summary: lines.join('\n'), data };
}

/** The type names of an unfiltered description, or the one type asked for. */
const typeNames = (all: Array<{ type: string }> | undefined, filter: string | undefined) =>
  Array.isArray(all) ? all.map((t) => t.type).join(', ') : String(filter);

/** The 4 discovery tools, in docs/contract-conventions.md order. */
export const discoveryTools = [
  defineTool({
    name: 'get_manifest_schema',
    title: 'Manifest schema',
    description:
      'Describe the CellManifestV1 contract (apiVersion platform/v1alpha1, kind Cell): root fields, the members of `spec` ' +
      '(mount, entities, pages, navigation, roles), every semantic rule and authoring notes. Call this before writing a ' +
      'manifest. Returns `{ name, version, fields, spec, semanticRules, notes }`, the same body as GET /api/schemas/manifest. ' +
      'Next: get_entity_definition_schema and get_page_schema for the parts, or recommend_manifest_structure for a draft.',
    input: z.object({ version }),
    output: ManifestSchemaDescriptionSchema,
    hint: 'Call get_manifest_schema without `version` for the latest contract.',
    run: (_context, args) => {
      const data = services.getManifestSchema({ version: args.version });
      return describeAnswer(data, [`Spec fields: ${data.spec.map((f) => `\`${f.key}\``).join(', ')}.`]);
    },
  }),
  defineTool({
    name: 'get_entity_definition_schema',
    title: 'Entity definition schema',
    description:
      'Describe an EntityDefinition inside a manifest: key, names, fields (string, text, number, boolean, date, datetime, ' +
      'enum, object), relations, computed fields, lifecycle, events, capabilities, and the rules checked on them. Use it ' +
      'when writing `spec.entities`. Returns the body of GET /api/schemas/entity. Next: validate_entity on what you wrote.',
    input: z.object({ version }),
    output: EntitySchemaDescriptionSchema,
    hint: 'Call get_entity_definition_schema without `version` for the latest contract.',
    run: (_context, args) => describeAnswer(services.getEntitySchema({ version: args.version })),
  }),
  defineTool({
    name: 'get_page_schema',
    title: 'Page schema',
    description:
      'Describe a PageDefinition and its page types (entity-list, entity-detail, entity-create, entity-edit, dashboard, ' +
      'custom). Without `pageType` the answer lists all types in `pageTypes`; with one it carries that type in `pageType`. ' +
      'An unknown type is an error listing the valid ones. Same body as GET /api/schemas/page?type=. Next: validate_page.',
    input: z.object({
      pageType: z
        .string()
        .optional()
        .describe(`Narrow the answer to one page type: ${PAGE_TYPES.map((entry) => entry.type).join(', ')}.`),
    }),
    output: PageSchemaDescriptionSchema,
    hint: 'Call get_page_schema without `pageType` to see every page type.',
    run: (_context, args) => {
      const data = services.getPageSchema({ type: args.pageType });
      return describeAnswer(data, [`Page types: ${typeNames('pageTypes' in data ? data.pageTypes : undefined, args.pageType)}.`]);
    },
  }),
  defineTool({
    name: 'get_capability_schema',
    title: 'Capability schema',
    description:
      'Describe a CapabilityDefinition (user-facing actions on an entity) and its types: transition, mutation, workflow, ' +
      'export, integration, with the fields each type requires. With `capabilityType` the answer carries that type in ' +
      '`capabilityType`; an unknown type is an error listing the valid ones. Same body as GET /api/schemas/capability?type=.',
    input: z.object({
      capabilityType: z
        .string()
        .optional()
        .describe(`Narrow the answer to one capability type: ${Object.keys(CAPABILITY_TYPES).join(', ')}.`),
    }),
    output: CapabilitySchemaDescriptionSchema,
    hint: 'Call get_capability_schema without `capabilityType` to see every capability type.',
    run: (_context, args) => {
      const data = services.getCapabilitySchema({ type: args.capabilityType });
      const types = typeNames('capabilityTypes' in data ? data.capabilityTypes : undefined, args.capabilityType);
      return describeAnswer(data, [`Capability types: ${types}.`]);
    },
  }),
];
