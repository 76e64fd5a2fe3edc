/**
 * The OpenAPI 3.1 document of a contract handler, generated from its route table: parameters,
 * request bodies and answers come from the zod schemas the routes check with, so the document
 * cannot drift from what the handler does.
 */
import { z } from 'zod';
import { errorStatus, type ErrorCode } from '../../errors.ts';
import { ErrorEnvelopeSchema } from '../../http/error-envelope.ts';
import { openApiPath, type RouteDefinition } from '../http/route.ts';
import { ComponentCollector, schemaId, type JsonSchema } from './json-schema.ts';

export { ErrorEnvelopeSchema } from '../../http/error-envelope.ts';

/** What the document says about the handler besides its routes. */
export interface OpenApiSettings {
  title: string;
  version: string;
  basePath: string;
  /** Path of the MCP endpoint, when mounted. */
  mcpPath?: string;
}

const ERROR_TEXT: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'The body is empty or not JSON (`BAD_REQUEST`), or a parameter is malformed.',
  VALIDATION_ERROR: 'A parameter or a body member is missing or of the wrong type (`VALIDATION_ERROR`, with `details.fields`).',
  NOT_FOUND: 'Nothing has this key (`NOT_FOUND`).',
  METHOD_NOT_ALLOWED: 'Wrong method for this path; see the `Allow` header.',
  PAYLOAD_TOO_LARGE: 'The body is larger than the limit (`PAYLOAD_TOO_LARGE`).',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not `application/json` (`UNSUPPORTED_MEDIA_TYPE`).',
  INTERNAL_ERROR: 'Unexpected failure; `details.correlationId` identifies it in the host logs.',
};

/** One example envelope per code, shown in the docs next to each error status. */
const ERROR_EXAMPLE: Partial<Record<ErrorCode, { message: string; details?: Record<string, unknown> }>> = {
  BAD_REQUEST: { message: "Request body is not valid JSON. Expected property name or '}' in JSON at position 1" },
  VALIDATION_ERROR: { message: 'Request body is invalid (manifest: Required).', details: { fields: [{ path: 'manifest', message: 'Required' }] } },
  NOT_FOUND: { message: 'Primitive "flux-capacitor" not found. Call list_primitives to see the catalog.' },
  METHOD_NOT_ALLOWED: { message: 'GET is not allowed here; use POST, OPTIONS.' },
  PAYLOAD_TOO_LARGE: { message: 'Request body exceeds the limit of 1048576 bytes.', details: { limit: 1048576 } },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Content-Type must be application/json, received text/plain.' },
  INTERNAL_ERROR: {
    message: 'An unexpected error occurred. Quote the correlation id when reporting it.',
    details: { correlationId: '5f0c7a1e-2d4b-4c8e-9a51-3b2f6d7e8c90' },
  },
};

function errorsOf(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  if (route.body) for (const code of ['BAD_REQUEST', 'VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const) codes.add(code);
  codes.add('METHOD_NOT_ALLOWED');
  codes.add('INTERNAL_ERROR');
  return [...codes];
}

/**
 * Path and query parameters. A parameter whose schema has an id (e.g. `PageType`) refers to its
 * component; others are inlined. Optional wrappers are unwrapped: optionality is `required`.
 */
function parameters(route: RouteDefinition, collector: ComponentCollector): Array<() => JsonSchema> {
  const list: Array<() => JsonSchema> = [];
  for (const [where, shape] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    for (const [name, schema] of Object.entries(shape?.shape ?? {}) as Array<[string, z.ZodType]>) {
      const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
      const description = z.globalRegistry.get(schema)?.description ?? z.globalRegistry.get(inner)?.description;
      let body: () => JsonSchema;
      if (schemaId(inner)) body = collector.use(inner, 'input', name).ref;
      else {
        const { $schema: _s, description: _d, ...inline } = z.toJSONSchema(inner, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
        body = () => inline;
      }
      list.push(() => ({
        name,
        in: where,
        required: where === 'path' || !schema.safeParse(undefined).success,
        ...(description ? { description } : {}),
        schema: body(),
      }));
    }
  }
  return list;
}

/** Builds the document. Call once; the handler memoises the serialised result. */
export function buildOpenApiDocument(routes: RouteDefinition[], settings: OpenApiSettings): JsonSchema {
  const collector = new ComponentCollector();
  const error = collector.use(ErrorEnvelopeSchema, 'output', 'Error');
  const operations: Array<{ path: string; method: string; build: () => JsonSchema }> = [];

  for (const route of routes.filter((r) => !r.internal)) {
    const body = route.body ? collector.use(route.body, 'input', `${route.operationId}Request`) : undefined;
    const isSchema = route.response instanceof z.ZodType;
    const response = isSchema ? collector.use(route.response as z.ZodType, 'output', `${route.operationId}Response`) : undefined;
    const params = parameters(route, collector);
    operations.push({
      path: openApiPath(route.path),
      method: route.method.toLowerCase(),
      build: () => {
        const ok = response
          ? { description: 'Success.', content: { [(route.contentType ?? 'application/json').split(';')[0]!]: { schema: response.ref() } } }
          : {
              description: (route.response as { description: string }).description,
              content: { [(route.response as { contentType: string }).contentType]: {} },
            };
        // Codes grouped by status (BAD_REQUEST and VALIDATION_ERROR are both 400), one example each.
        const byStatus = new Map<string, ErrorCode[]>();
        for (const code of errorsOf(route)) byStatus.set(String(errorStatus[code]), [...(byStatus.get(String(errorStatus[code])) ?? []), code]);
        const errors = Object.fromEntries(
          [...byStatus].map(([status, codes]) => [
            status,
            {
              description: codes.map((code) => ERROR_TEXT[code] ?? code).join(' '),
              content: {
                'application/json': {
                  schema: error.ref(),
                  examples: Object.fromEntries(codes.map((code) => [code, { value: { error: code, ...(ERROR_EXAMPLE[code] ?? { message: code }) } }])),
                },
              },
            },
          ]),
        );
        return {
          operationId: route.operationId,
          tags: [route.tag],
          summary: route.summary,
          description: route.description,
          ...(params.length > 0 ? { parameters: params.map((parameter) => parameter()) } : {}),
          ...(body
            ? {
                requestBody: {
                  required: true,
                  content: { 'application/json': { schema: body.ref(), ...(route.example ? { example: route.example() } : {}) } },
                },
              }
            : {}),
          responses: { '200': ok, ...errors },
        };
      },
    });
  }

  const components = collector.build();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) (paths[operation.path] ??= {})[operation.method] = operation.build();
  if (settings.mcpPath) {
    paths[settings.mcpPath] = {
      post: {
        operationId: 'mcp',
        tags: ['mcp'],
        summary: 'MCP endpoint (Streamable HTTP, stateless)',
        description:
          'JSON-RPC 2.0 for AI agents: 19 tools and 5 documentation resources over the same services as the REST routes. Send `Accept: application/json, text/event-stream`. GET and DELETE answer 405.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { jsonrpc: { const: '2.0' }, id: {}, method: { type: 'string' }, params: { type: 'object' } },
                required: ['jsonrpc', 'method'],
              },
            },
          },
        },
        responses: {
          '200': { description: 'JSON-RPC response.', content: { 'application/json': {} } },
          '405': { description: 'Only POST is served (stateless transport).' },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: settings.title,
      version: settings.version,
      description:
        'Contract intelligence for Cell manifests (`platform/v1alpha1`): schema discovery, UI primitives, examples, guidance and validation. Errors use the envelope `{ error, message, details? }`.',
    },
    servers: [{ url: settings.basePath || '/' }],
    tags: ['schemas', 'primitives', 'examples', 'validation', 'guidance', 'docs', 'health', ...(settings.mcpPath ? ['mcp'] : [])].map((name) => ({ name })),
    paths,
    components: { schemas: components },
  };
}
