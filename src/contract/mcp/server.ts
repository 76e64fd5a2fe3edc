/**
 * `createMcpServer(context)`: an `McpServer` (from `@modelcontextprotocol/server`, the SDK's 2.x
 * line) carrying the 19 tools and 5 resources. One definition serves both protocol revisions:
 * 2026-07-28 (stateless, `_meta` envelope on every request) and 2025-11-25 (`initialize`
 * handshake); the HTTP endpoint builds one per request, stdio one per connection.
 *
 * Construction is kept cheap because stateless HTTP builds a server for every POST: the
 * `tools/list` answer (JSON Schema of 38 zod schemas) is computed once per process, resource
 * markdown once per context, the JSON Schema validator is shared instead of the SDK building an
 * Ajv instance per server, and a per-request server registers only what its request can reach.
 */
import { McpServer, type ReadResourceResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import pkg from '../../../package.json' with { type: 'json' };
import type { ContractContext } from '../context.ts';
import { mcpResources, type McpResource } from './resources.ts';
import { callTool } from './tool.ts';
import { mcpTools, toolDefinitions } from './tools/index.ts';
import type { McpTool } from './tool.ts';
import type { OtelContext } from '../../telemetry/otel-globals.ts';
import { requestSpanOf } from '../../telemetry/request-span.ts';

/** `serverInfo.name` reported on `initialize`. */
export const MCP_SERVER_NAME = 'cellgate';

/** `serverInfo` of every server (and of the direct `tools/call` path's 2026-07-28 result `_meta`). */
export const SERVER_INFO = { name: MCP_SERVER_NAME, title: 'cellgate contract API', version: pkg.version };

const INSTRUCTIONS =
  'cellgate describes and checks Cell manifests (apiVersion platform/v1alpha1). Typical loop: ' +
  'recommend_manifest_structure → get_manifest_schema → write the manifest → validate_manifest → ' +
  'explain_validation_errors → fix and validate again → normalize_manifest. Documentation resources: platform://docs/*.';

let sharedValidator: AjvJsonSchemaValidator | undefined;

/** Rendered markdown per context and resource; the text only changes with the context. */
const rendered = new WeakMap<ContractContext, Map<McpResource, Promise<ReadResourceResult>>>();

function readResource(context: ContractContext, resource: McpResource): Promise<ReadResourceResult> {
  let cache = rendered.get(context);
  if (!cache) rendered.set(context, (cache = new Map()));
  let result = cache.get(resource);
  if (!result) {
    result = Promise.resolve(resource.render(context)).then((text) => ({
      contents: [{ uri: resource.uri, mimeType: 'text/markdown', text }],
    }));
    // A failed render is not cached, so the next read tries again.
    result.catch(() => cache.delete(resource));
    cache.set(resource, result);
  }
  return result;
}

/**
 * Each tool's argument schema as the SDK takes it: validation is zod's own (the SDK's check is the
 * one argument check of a call), and the JSON Schema is the precomputed `tools/list` entry. The
 * SDK converts a registered schema to JSON Schema once per server, and it needs it on every
 * 2026-07-28 `tools/call`; with a server per request that was ~100 µs of zod conversion per call.
 */
const argumentSchemas = new WeakMap<McpTool, StandardSchemaWithJSON>();

function argumentSchemaOf(tool: McpTool, index: number): StandardSchemaWithJSON {
  let schema = argumentSchemas.get(tool);
  if (!schema) {
    const zod = tool.input['~standard'];
    const json = () => toolDefinitions()[index]!.inputSchema as Record<string, unknown>;
    schema = { '~standard': { version: 1, vendor: zod.vendor, validate: zod.validate, jsonSchema: { input: json, output: json } } };
    argumentSchemas.set(tool, schema);
  }
  return schema;
}

/**
 * What one server must be able to answer. The stateless endpoint knows its single request before
 * building the server, so it registers only what that request can reach (see {@link scopeOf});
 * everything else (capabilities, the tool listing, errors for unknown tools) is unchanged.
 */
export interface ServerScope {
  /** Tool names to register, or `'all'`. */
  tools: ReadonlySet<string> | 'all';
  /** Register the 5 resources. */
  resources: boolean;
  /** The tracing context of the HTTP request, parent of its tool calls' spans. */
  parent?: OtelContext | undefined;
}

const FULL: ServerScope = { tools: 'all', resources: true };

/**
 * The scope a parsed JSON-RPC body needs: a single `tools/call` only its tool, `resources/*`
 * only the resources, `tools/list` / `initialize` / `ping` nothing (the listing is precomputed),
 * a batch or anything unusual everything.
 */
export function scopeOf(message: unknown): ServerScope {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return FULL;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  if (method === 'tools/call') {
    const name = params?.name;
    return { tools: new Set(typeof name === 'string' ? [name] : []), resources: false };
  }
  return { tools: new Set(), resources: typeof method === 'string' && method.startsWith('resources/') };
}

/** The scope of a request's server, with the request's span as the parent of tool spans when traced. */
export function requestScope(message: unknown, request: Request): ServerScope {
  const scope = scopeOf(message);
  const traced = requestSpanOf(request);
  return traced === undefined ? scope : { ...scope, parent: traced.context };
}

/**
 * Builds an MCP server exposing the contract API of `context`. Connect it to any SDK transport.
 * `scope` narrows what gets registered, for a server that answers one known request.
 *
 * @example
 * const server = createMcpServer(createContractContext());
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(context: ContractContext, scope: ServerScope = FULL): McpServer {
  const server = new McpServer(
    { ...SERVER_INFO },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: (sharedValidator ??= new AjvJsonSchemaValidator()),
    },
  );
  mcpTools.forEach((tool, index) => {
    if (scope.tools !== 'all' && !scope.tools.has(tool.name)) return;
    // Only the input schema goes to the SDK (it validates arguments with it, once per call); the
    // listing below is precomputed, output schemas included.
    server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: argumentSchemaOf(tool, index) }, (args) =>
      callTool(tool, context, args as Record<string, unknown>, scope.parent),
    );
  });
  if (scope.resources) {
    for (const resource of mcpResources) {
      server.registerResource(resource.name, resource.uri, { title: resource.title, description: resource.description, mimeType: 'text/markdown' }, () =>
        readResource(context, resource),
      );
    }
  }
  const tools = toolDefinitions();
  server.server.setRequestHandler('tools/list', () => ({ tools }));
  return server;
}
