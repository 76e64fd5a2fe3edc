/** Validation tools: structural + semantic checks and normalization (REST `POST /api/validate/*`). */
import * as services from '../../services.ts';
import { NormalizeResultSchema, ValidationResultSchema, type ValidationIssue } from '../../../validation/results.ts';
import { bullets, defineTool, type ToolAnswer } from '../tool.ts';

const NEXT_ON_ERRORS = 'Call explain_validation_errors with these errors for fixes, then validate again.';

/** Summary of a validation result; invalid input is data, never a tool error. */
function verdict(subject: string, result: { valid: boolean; errors: ValidationIssue[] }, validNote: string): string {
  if (result.valid) return `${subject} is valid. No errors found. ${validNote}`.trim();
  return [
    `${subject} is **invalid**: ${result.errors.length} error(s).`,
    '',
    bullets(result.errors.map((e) => `\`${e.field}\`: ${e.message}`)),
    '',
    NEXT_ON_ERRORS,
  ].join('\n');
}

const answer = (subject: string, data: { valid: boolean; errors: ValidationIssue[] }, validNote = ''): ToolAnswer => ({
  summary: verdict(subject, data, validNote),
  data,
});

/** The 4 validation tools, in docs/contract-conventions.md order. */
export const validationTools = [
  defineTool({
    name: 'validate_manifest',
    title: 'Validate a manifest',
    description:
      'Check a whole CellManifestV1: structure first (missing members read `Required`, wrong literals name the expected ' +
      'value), then semantic rules (unique keys, landing page exists, relation targets exist, …). Invalid input is not an ' +
      'error: the result is `{ valid, errors: [{ field, message }] }`, the body of POST /api/validate/manifest. Next: ' +
      'explain_validation_errors when invalid, normalize_manifest when valid.',
    input: services.ValidateManifestRequestSchema,
    output: ValidationResultSchema,
    shallowArguments: services.provenManifestArguments,
    run: (_context, args, { textLength, argumentsProven }) =>
      answer('Manifest', services.checked.validateManifest(args, textLength, argumentsProven), 'Call normalize_manifest to fill defaults.'),
  }),
  defineTool({
    name: 'validate_entity',
    title: 'Validate an entity definition',
    description:
      'Check one EntityDefinition (as written in `spec.entities`) on its own: fields, relations, computed fields, ' +
      'lifecycle, capabilities. Returns `{ valid, errors }`, the body of POST /api/validate/entity. Next: ' +
      'explain_validation_errors when invalid; get_entity_definition_schema for the contract.',
    input: services.ValidateEntityRequestSchema,
    output: ValidationResultSchema,
    run: (_context, args) => answer('Entity', services.checked.validateEntity(args)),
  }),
  defineTool({
    name: 'validate_page',
    title: 'Validate a page definition',
    description:
      'Check one PageDefinition (key, type, title, path, entity where the type needs one, …). Returns `{ valid, errors }`, ' +
      'the body of POST /api/validate/page. Next: explain_validation_errors when invalid; get_page_schema for the contract.',
    input: services.ValidatePageRequestSchema,
    output: ValidationResultSchema,
    run: (_context, args) => answer('Page', services.checked.validatePage(args)),
  }),
  defineTool({
    name: 'normalize_manifest',
    title: 'Normalize a manifest',
    description:
      'Validate a manifest and, when valid, return it with defaults filled in and omitted lists as empty lists ' +
      '(`{ valid: true, manifest, errors: [] }`); when invalid, `{ valid: false, errors }` without `manifest`. Same body as ' +
      'POST /api/validate/normalize. Normalizing twice gives the same manifest. Use it as the last step of the loop.',
    input: services.ValidateManifestRequestSchema,
    output: NormalizeResultSchema,
    run: (_context, args) => {
      const data = services.checked.normalizeManifest(args);
      const summary = data.valid
        ? 'Manifest normalized: defaults filled, omitted lists set to empty lists. The normalized manifest is in the JSON block.'
        : verdict('Manifest', data, '');
      return { summary, data };
    },
  }),
];
