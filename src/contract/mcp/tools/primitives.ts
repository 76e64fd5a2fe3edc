/** Primitive tools (docs/decisions/A10.md): examples, props validation and scaffolding of primitives. */
import * as services from '../../services.ts';
import {
  PrimitiveExamplesRequestSchema,
  PrimitiveExamplesSchema,
  ScaffoldRequestSchema,
  ScaffoldResultSchema,
  ValidatePropsRequestSchema,
} from '../../catalog/schemas.ts';
import { ValidationResultSchema } from '../../../validation/results.ts';
import { bullets, defineTool } from '../tool.ts';

/** The 3 primitive tools, in docs/contract-conventions.md order. */
export const primitiveTools = [
  defineTool({
    name: 'get_primitive_examples',
    title: 'Get primitive examples',
    description:
      'Get example props for a primitive, core or custom: each example has a name, an optional description and a props ' +
      'object that passes validate_primitive_props. `version` selects a version of a custom primitive (omit it for core ' +
      'primitives and for the newest). Returns `{ key, version?, examples }`. An unknown key is an error: call ' +
      'list_primitives for the valid keys. Next: adapt the props and call validate_primitive_props.',
    input: PrimitiveExamplesRequestSchema,
    output: PrimitiveExamplesSchema,
    hint: 'Call list_primitives for the valid keys, get_primitive_contract for the versions of a custom one.',
    run: async (context, args) => {
      const data = await services.getPrimitiveExamples(context, args);
      const summary = [
        `## Examples for primitive: ${data.key}${data.version ? ` ${data.version}` : ''}`,
        '',
        bullets(data.examples.map((e) => `**${e.name}**${e.description ? `: ${e.description}` : ''}`)),
      ].join('\n');
      return { summary, data };
    },
  }),
  defineTool({
    name: 'scaffold_primitive',
    title: 'Scaffold a custom primitive',
    description:
      'Create the contract and files of a new custom primitive: `name` (kebab-case key) and `label` are required; ' +
      '`description`, `category` (default custom) and `props` (an object schema) are optional. Returns ' +
      '`{ contract, files: [{ path, content }], written }`. On a public server nothing is written (`written: false`): ' +
      'save the files yourself. On a local server started with a project folder the files are written inside it, never ' +
      'outside and never over an existing file. Next: validate_primitive_props with example props.',
    input: ScaffoldRequestSchema,
    output: ScaffoldResultSchema,
    hint: 'Pick another `name` (list_primitives shows the keys in use).',
    run: async (context, args) => {
      const data = await services.scaffoldPrimitive(context, args);
      const summary = [
        `## Scaffolded primitive: ${data.contract.key}`,
        '',
        data.written ? 'Files written into the project folder:' : 'Nothing was written (no project folder on this server). Files to create:',
        bullets(data.files.map((f) => `\`${f.path}\``)),
      ].join('\n');
      return { summary, data };
    },
  }),
  defineTool({
    name: 'validate_primitive_props',
    title: 'Validate primitive props',
    description:
      'Check a props object against the props schema of a primitive, core or custom (`version` selects a version of a ' +
      'custom one). Invalid props are not an error: the result is `{ valid, errors: [{ field, message }] }`. An unknown ' +
      'key is an error: call list_primitives. Next: fix the listed props, or get_primitive_examples for valid ones.',
    input: ValidatePropsRequestSchema,
    output: ValidationResultSchema,
    hint: 'Call list_primitives for the valid keys, get_primitive_contract for the versions of a custom one.',
    run: async (context, args) => {
      const data = await services.validatePrimitiveProps(context, args);
      const summary = data.valid
        ? `Props are valid for primitive "${args.key}".`
        : [
            `Props are **invalid** for primitive "${args.key}": ${data.errors.length} error(s).`,
            '',
            bullets(data.errors.map((e) => `\`${e.field}\`: ${e.message}`)),
          ].join('\n');
      return { summary, data };
    },
  }),
];
