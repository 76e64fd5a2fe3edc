/** Registry tools: the primitive catalog and the example manifests (REST `GET /api/primitives*`, `/api/examples*`). */
import { z } from 'zod';
import * as services from '../../services.ts';
import { PrimitiveDetailSchema, PrimitiveEntrySchema, PrimitiveListQuerySchema } from '../../catalog/index.ts';
import { ExampleEntrySchema } from '../../examples/index.ts';
import { bullets, defineTool, wrapped } from '../tool.ts';

/** The 4 registry tools, in docs/contract-conventions.md order. */
export const registryTools = [
  defineTool({
    name: 'list_primitives',
    title: 'List UI primitives',
    description:
      'List the UI primitives a manifest may use: 30 core ones (collection, input, form, layout, page, display, feedback) ' +
      'plus any custom primitives of this project (`source: "custom"`). Filter with `category` and/or `source` (`core` or ' +
      '`custom`); an unknown value is an error listing the valid ones. Returns `{ primitives: [...] }` (the REST answer of ' +
      'GET /api/primitives is the bare array, also given as JSON text). Next: get_primitive_contract for one primitive.',
    input: PrimitiveListQuerySchema,
    output: z.object({ primitives: z.array(PrimitiveEntrySchema) }),
    hint: 'Call list_primitives without filters to see every category and source in use.',
    run: async (context, args) => {
      const data = await services.listPrimitives(context, { category: args.category, source: args.source });
      const filter = [args.category && `category "${args.category}"`, args.source && `source "${args.source}"`].filter(Boolean).join(', ');
      const summary = [
        '## UI primitives',
        '',
        `${data.length} primitive(s)${filter ? ` for ${filter}` : ''}:`,
        bullets(data.map((p) => `**${p.key}** (${p.category}): ${p.description}`)),
      ].join('\n');
      return { summary, data, structured: wrapped('primitives', data) };
    },
  }),
  defineTool({
    name: 'get_primitive_contract',
    title: 'Get a primitive contract',
    description:
      'Get one primitive by key: category, description, when it fits best and when to avoid it; for custom primitives ' +
      'also version, contract and slots; always `propsSchema`, the JSON Schema of its props. Same body as GET /api/primitives/{key}. An unknown key is an ' +
      'error: call list_primitives for the valid keys. Next: get_primitive_examples or validate_primitive_props.',
    input: z.object({ primitive: z.string().min(1).describe('Primitive key, e.g. `form`.') }),
    output: PrimitiveDetailSchema,
    hint: 'Call list_primitives for the valid keys.',
    run: async (context, args) => {
      const data = await services.getPrimitive(context, args.primitive);
      const lines = [`## Primitive: ${data.key}`, '', `Category: ${data.category}. Source: ${data.source}.`, data.description];
      if (data.bestFor?.length) lines.push(`Best for: ${data.bestFor.join('; ')}.`);
      if (data.avoidWhen?.length) lines.push(`Avoid when: ${data.avoidWhen.join('; ')}.`);
      return { summary: lines.join('\n'), data };
    },
  }),
  defineTool({
    name: 'list_examples',
    title: 'List example manifests',
    description:
      'List the example manifests and standalone entity examples (key, title, description, entities). Use them as ' +
      'models before writing a manifest. Returns `{ examples: [...] }` (GET /api/examples answers the bare array, also ' +
      'given as JSON text). Next: get_example_manifest with one key.',
    input: z.object({}),
    output: z.object({ examples: z.array(ExampleEntrySchema) }),
    run: async () => {
      const data = await services.listExamples();
      const summary = ['## Example manifests', '', bullets(data.map((e) => `**${e.key}**: ${e.title} — ${e.description}`))].join('\n');
      return { summary, data, structured: wrapped('examples', data) };
    },
  }),
  defineTool({
    name: 'get_example_manifest',
    title: 'Get an example manifest',
    description:
      'Get the full content of one example as JSON: a complete CellManifestV1 (entity files inlined) or, for `entities/*` ' +
      'keys, one EntityDefinition. Every example validates. Same body as GET /api/examples/{key}. An unknown key is an ' +
      'error: call list_examples for the valid keys. Next: adapt it, then validate_manifest.',
    input: z.object({ example: z.string().min(1).describe('Example key from list_examples, e.g. `crm-manifest`.') }),
    output: z.looseObject({}).describe('A CellManifestV1, or for `entities/*` keys an EntityDefinition.'),
    hint: 'Call list_examples for the valid keys.',
    run: async (_context, args) => {
      const data = (await services.getExample(args.example)) as Record<string, unknown>;
      return { summary: `## Example: ${args.example}\n\nThe full content is in the JSON block.`, data };
    },
  }),
];
