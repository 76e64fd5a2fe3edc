/**
 * The Area A routes: each one documents itself and delegates to one function of `services.ts`.
 * Routes of the docs themselves (page, assets, OpenAPI, JSON Schema) are in `docs/routes.ts`.
 */
import { z } from 'zod';
import * as services from '../services.ts';
import type { RouteDefinition } from './route.ts';
import { NormalizeResultSchema, ValidationResultSchema, validationResultText } from '../../validation/results.ts';
import {
  CapabilitySchemaDescriptionSchema,
  EntitySchemaDescriptionSchema,
  ManifestSchemaDescriptionSchema,
  PageSchemaDescriptionSchema,
} from '../describe/index.ts';
import { CapabilityTypeSchema, PageTypeSchema } from '../schema/index.ts';
import { PrimitiveDetailSchema, PrimitiveListQuerySchema, PrimitiveListSchema } from '../catalog/index.ts';
import { ExampleEntrySchema, ExampleContentSchema } from '../examples/index.ts';
import {
  ExplainErrorsInputSchema,
  ExplainErrorsResultSchema,
  RecommendInputSchema,
  RecommendResultSchema,
  SuggestPagesInputSchema,
  SuggestPagesResultSchema,
  SuggestRelationsInputSchema,
  SuggestRelationsResultSchema,
} from '../guidance/index.ts';

const VersionQuery = z.object({
  version: z.enum(['latest', 'v1alpha1']).optional().describe('Contract version; `latest` and `v1alpha1` give the same answer. @default latest'),
});

/** Health answer. */
export const HealthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });

const describedGet = (
  path: string,
  operationId: string,
  summary: string,
  description: string,
  rest: Omit<RouteDefinition, 'method' | 'path' | 'operationId' | 'summary' | 'description' | 'tag'>,
  tag = 'schemas',
): RouteDefinition => ({ method: 'GET', path, operationId, summary, description, tag, ...rest });

/** Every Area A route except the documentation routes. */
export const contractRoutes: RouteDefinition[] = [
  // --- schema discovery -----------------------------------------------------------------------
  describedGet(
    '/api/schemas/manifest',
    'getManifestSchema',
    'Describe CellManifestV1',
    'Fields, spec members, semantic rules and notes of a Cell manifest (`platform/v1alpha1`).',
    {
      query: VersionQuery,
      response: ManifestSchemaDescriptionSchema,
      errors: ['VALIDATION_ERROR'],
      cacheKey: ({ query }) => query.get('version') ?? '',
      handle: ({ query }) => services.getManifestSchema({ version: query.get('version') }),
    },
  ),
  describedGet('/api/schemas/entity', 'getEntitySchema', 'Describe EntityDefinition', 'Fields and semantic rules of an entity inside a manifest.', {
    query: VersionQuery,
    response: EntitySchemaDescriptionSchema,
    errors: ['VALIDATION_ERROR'],
    cacheKey: ({ query }) => query.get('version') ?? '',
    handle: ({ query }) => services.getEntitySchema({ version: query.get('version') }),
  }),
  describedGet(
    '/api/schemas/page',
    'getPageSchema',
    'Describe PageDefinition',
    'Fields, rules and page types. With `type`, the answer carries that one `pageType` instead of the `pageTypes` list; an unknown type is 400.',
    {
      query: z.object({ type: PageTypeSchema.optional().describe('Narrow the answer to one page type.') }),
      response: PageSchemaDescriptionSchema,
      errors: ['VALIDATION_ERROR'],
      cacheKey: ({ query }) => query.get('type') ?? '',
      handle: ({ query }) => services.getPageSchema({ type: query.get('type') }),
    },
  ),
  describedGet(
    '/api/schemas/capability',
    'getCapabilitySchema',
    'Describe CapabilityDefinition',
    'Fields, rules and capability types. With `type`, the answer carries that one `capabilityType` instead of the `capabilityTypes` list; an unknown type is 400.',
    {
      query: z.object({ type: CapabilityTypeSchema.optional().describe('Narrow the answer to one capability type.') }),
      response: CapabilitySchemaDescriptionSchema,
      errors: ['VALIDATION_ERROR'],
      cacheKey: ({ query }) => query.get('type') ?? '',
      handle: ({ query }) => services.getCapabilitySchema({ type: query.get('type') }),
    },
  ),

  // --- primitives -----------------------------------------------------------------------------
  describedGet(
    '/api/primitives',
    'listPrimitives',
    'List UI primitives',
    'The 30 core primitives in catalog order, then the custom ones. Unknown `category` or `source` values are 400.',
    {
      query: PrimitiveListQuerySchema,
      response: PrimitiveListSchema,
      errors: ['VALIDATION_ERROR'],
      cacheKey: ({ query }) => `${query.get('category') ?? ''}|${query.get('source') ?? ''}`,
      handle: ({ query, context }) => services.listPrimitives(context, { category: query.get('category'), source: query.get('source') }),
    },
    'primitives',
  ),
  describedGet(
    '/api/primitives/:key',
    'getPrimitive',
    'Get one UI primitive',
    'One catalog entry with the JSON Schema of its props; custom primitives include `version`, `contract` and `slots`.',
    {
      params: z.object({ key: z.string().describe('Primitive key, e.g. `data-grid`.') }),
      response: PrimitiveDetailSchema,
      errors: ['NOT_FOUND'],
      cacheKey: ({ params }) => params.key!,
      handle: ({ params, context }) => services.getPrimitive(context, params.key!),
    },
    'primitives',
  ),

  // --- examples -------------------------------------------------------------------------------
  describedGet(
    '/api/examples',
    'listExamples',
    'List example manifests',
    'The example catalog: two manifests and two entity definitions.',
    {
      response: z.array(ExampleEntrySchema),
      cacheKey: () => '',
      handle: () => services.listExamples(),
    },
    'examples',
  ),
  describedGet(
    '/api/examples/:key+',
    'getExample',
    'Get one example as JSON',
    'A manifest with its entity files inlined, or a manifest-form EntityDefinition for `entities/*` keys. Keys containing a slash work literally (`/api/examples/entities/customer.entity`) and percent-encoded.',
    {
      params: z.object({ key: z.string().describe('Example key, e.g. `crm-manifest` or `entities/customer.entity`.') }),
      response: ExampleContentSchema,
      errors: ['NOT_FOUND'],
      cacheKey: ({ params }) => params.key!,
      handle: ({ params }) => services.getExample(params.key!),
    },
    'examples',
  ),

  // --- validation (200 valid or not) ----------------------------------------------------------
  ...(
    [
      [
        'manifest',
        'validateManifest',
        'Validate a manifest',
        'Structural, then semantic checks of a CellManifestV1. The input is not transformed.',
        services.ValidateManifestRequestSchema,
        ValidationResultSchema,
        services.validateManifest,
        () => ({ manifest: services.getExample('minimal-manifest') }),
      ],
      [
        'entity',
        'validateEntity',
        'Validate an entity',
        'Structural and semantic checks of one EntityDefinition.',
        services.ValidateEntityRequestSchema,
        ValidationResultSchema,
        services.validateEntity,
        () => ({ entity: services.getExample('entities/customer.entity') }),
      ],
      [
        'page',
        'validatePage',
        'Validate a page',
        'Checks one PageDefinition.',
        services.ValidatePageRequestSchema,
        ValidationResultSchema,
        services.validatePage,
        () => ({ page: { key: 'dashboard', type: 'dashboard', title: 'Dashboard', path: '/dashboard' } }),
      ],
      [
        'normalize',
        'normalizeManifest',
        'Validate and normalize a manifest',
        'If valid, answers the manifest with defaults filled and omitted arrays as empty arrays; if not, the errors and no `manifest`.',
        services.ValidateManifestRequestSchema,
        NormalizeResultSchema,
        services.normalizeManifest,
        () => ({ manifest: services.getExample('minimal-manifest') }),
      ],
      [
        'entity-document',
        'validateEntityDocument',
        'Validate an entity definition document',
        'The body is the standalone (snake_case) entity definition document itself, checked by the same validator `defineEntity` uses.',
        services.EntityDocumentRequestSchema,
        ValidationResultSchema,
        services.validateEntityDocument,
        undefined,
      ],
    ] as const
  ).map(
    ([name, operationId, summary, description, body, response, run, example]): RouteDefinition => ({
      method: 'POST',
      path: `/api/validate/${name}`,
      operationId,
      tag: 'validation',
      summary,
      description: `${description} Answers 200 whether the input is valid or not.`,
      body,
      response,
      ...(example ? { example } : {}),
      // The manifest route proves the depth of the bodies it validates (see services.validateManifest).
      ...(run === services.validateManifest ? { provesBodyDepth: true } : {}),
      ...(response === ValidationResultSchema ? { serialize: validationResultText } : {}),
      handle: ({ body: input, bodyLength, boundBodyDepth }) => run(input, bodyLength, boundBodyDepth),
    }),
  ),

  // --- guidance -------------------------------------------------------------------------------
  ...(
    [
      [
        'recommend',
        'recommend',
        'Recommend a manifest structure',
        'Entities, pages, relations and navigation for a plain-language goal, from the matched domain template (`matchedDomain: null` and empty lists when none matches).',
        RecommendInputSchema,
        RecommendResultSchema,
        services.recommend,
        { goal: 'A CRM for our sales team to track customers and invoices' },
      ],
      [
        'suggest-pages',
        'suggestPages',
        'Suggest pages for entities',
        'A dashboard plus list, detail and create pages per entity key, and the navigation for them.',
        SuggestPagesInputSchema,
        SuggestPagesResultSchema,
        services.suggestPages,
        { entities: ['customer', 'invoice'] },
      ],
      [
        'suggest-relations',
        'suggestRelations',
        'Suggest relations',
        'A belongs_to relation for every `<other_entity>_id` field.',
        SuggestRelationsInputSchema,
        SuggestRelationsResultSchema,
        services.suggestRelations,
        {
          entities: [
            { key: 'customer', fields: ['name'] },
            { key: 'invoice', fields: ['number', 'customer_id'] },
          ],
        },
      ],
      [
        'explain-errors',
        'explainErrors',
        'Explain validation errors',
        'For each `{ field, message }`: the path, the problem, a fix and the MCP tools that help; same length and order as the input.',
        ExplainErrorsInputSchema,
        ExplainErrorsResultSchema,
        services.explainErrors,
        { errors: [{ field: 'metadata', message: 'Required' }] },
      ],
    ] as const
  ).map(
    ([name, operationId, summary, description, body, response, run, example]): RouteDefinition => ({
      method: 'POST',
      path: `/api/guidance/${name}`,
      operationId,
      tag: 'guidance',
      summary,
      description,
      body,
      response,
      example: () => example,
      handle: ({ body: input }) => run(input),
    }),
  ),

  // --- health ---------------------------------------------------------------------------------
  describedGet(
    '/health',
    'health',
    'Health check',
    'Answers `{ "status": "ok" }` while the handler is serving.',
    {
      response: HealthSchema,
      cacheKey: () => '',
      handle: () => ({ status: 'ok' }),
    },
    'health',
  ),
];
