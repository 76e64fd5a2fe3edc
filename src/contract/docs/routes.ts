/**
 * The documentation routes: the interactive page and its assets, the OpenAPI document of every
 * route (these included), and JSON Schema of the manifest and entity contracts.
 */
import { z } from 'zod';
import { CellgateError } from '../../errors.ts';
import { entityJsonSchema, manifestJsonSchema } from '../describe/index.ts';
import type { OpenApiDocument, ResolvedHandlerOptions } from '../http/options.ts';
import type { RouteDefinition } from '../http/route.ts';
import { createAssetStore, readSwaggerUiFile } from './assets.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { DOCS_CONTENT_SECURITY_POLICY, docsPageHtml } from './page.ts';

/** Version reported in the OpenAPI `info` block. */
export const CONTRACT_API_VERSION = '0.1.0';

const JSON_SCHEMA_CONTENT_TYPE = 'application/schema+json; charset=utf-8';

/** The JSON Schema documents served under `/api/json-schema/{id}`. */
const jsonSchemas = {
  manifest: { title: 'CellManifestV1', generate: manifestJsonSchema },
  entity: { title: 'EntityDefinition', generate: entityJsonSchema },
} as const;

const JsonSchemaListSchema = z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })).meta({ id: 'JsonSchemaList' });
const OpenApiDocumentSchema = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.').meta({ id: 'OpenApiDocument' });
const JsonSchemaDocumentSchema = z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12) document.').meta({ id: 'JsonSchemaDocument' });

function jsonSchemaOf(id: keyof typeof jsonSchemas, basePath: string): Record<string, unknown> {
  const { title, generate } = jsonSchemas[id];
  const { $schema, ...rest } = generate();
  return { $schema, $id: `${basePath}/api/json-schema/${id}`, title, ...rest };
}

/**
 * Routes of the docs. `allRoutes` is read when the OpenAPI document is first requested, so it can
 * include these routes as well.
 */
export function docsRoutes(options: ResolvedHandlerOptions, allRoutes: () => RouteDefinition[]): RouteDefinition[] {
  const { basePath, docs } = options;
  const assets = createAssetStore(docs.assets ?? readSwaggerUiFile);
  const page = docs.enabled
    ? ([
        {
          method: 'GET',
          path: '/api/docs',
          operationId: 'docsPage',
          tag: 'docs',
          summary: 'Interactive API reference',
          description: 'This page: Swagger UI over `/api/openapi.json`, with every asset served by the handler (works offline).',
          response: { contentType: 'text/html', description: 'The HTML page.' },
          handle: () =>
            new Response(docsPageHtml(docs.title, basePath), {
              headers: {
                'content-type': 'text/html; charset=utf-8',
                'cache-control': 'no-cache',
                'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
                'x-frame-options': 'DENY', // frame-ancestors for browsers that predate CSP level 2
                'referrer-policy': 'no-referrer',
              },
            }),
        },
        {
          method: 'GET',
          path: '/api/docs/assets/:file',
          operationId: 'docsAsset',
          tag: 'docs',
          summary: 'Docs page asset',
          description: 'Swagger UI files of the docs page.',
          internal: true,
          response: { contentType: 'application/octet-stream', description: 'The file.' },
          handle: async ({ params }) => {
            const asset = await assets(params.file!);
            if (!asset) throw new CellgateError('NOT_FOUND', `No docs asset named "${params.file}".`);
            return new Response(asset.body as Uint8Array<ArrayBuffer> | string, {
              headers: { 'content-type': asset.contentType, 'cache-control': 'public, max-age=86400' },
            });
          },
        },
      ] satisfies RouteDefinition[])
    : [];

  let openapi: OpenApiDocument | undefined;
  const openApiDocument = (): OpenApiDocument => {
    const own = buildOpenApiDocument(allRoutes(), {
      title: docs.title,
      version: CONTRACT_API_VERSION,
      basePath,
      ...(options.mcp ? { mcpPath: options.mcp.path } : {}),
    });
    return docs.extendOpenApi ? docs.extendOpenApi(own) : own;
  };
  return [
    ...page,
    {
      method: 'GET',
      path: '/api/openapi.json',
      operationId: 'openApiDocument',
      tag: 'docs',
      summary: 'OpenAPI 3.1 document',
      description: 'This document, generated from the zod schemas the routes check requests with.',
      response: OpenApiDocumentSchema,
      cacheKey: () => '',
      handle: () => (openapi ??= openApiDocument()),
    },
    {
      method: 'GET',
      path: '/api/json-schema',
      operationId: 'listJsonSchemas',
      tag: 'docs',
      summary: 'List JSON Schema documents',
      description: 'The JSON Schema documents of the contract.',
      response: JsonSchemaListSchema,
      cacheKey: () => '',
      handle: () => Object.entries(jsonSchemas).map(([id, { title }]) => ({ id, title, url: `${basePath}/api/json-schema/${id}` })),
    },
    ...(Object.keys(jsonSchemas) as Array<keyof typeof jsonSchemas>).map(
      (id): RouteDefinition => ({
        method: 'GET',
        path: `/api/json-schema/${id}`,
        operationId: `${id}JsonSchema`,
        tag: 'docs',
        summary: `JSON Schema of ${jsonSchemas[id].title}`,
        description: `Draft 2020-12 JSON Schema generated from the zod schema that validates a ${jsonSchemas[id].title} (structure only; semantic rules are checked by the validate endpoints).`,
        response: JsonSchemaDocumentSchema,
        contentType: JSON_SCHEMA_CONTENT_TYPE,
        cacheKey: () => '',
        handle: () => jsonSchemaOf(id, basePath),
      }),
    ),
  ];
}
