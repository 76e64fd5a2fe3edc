/**
 * `createMcpServer(context)`: an `McpServer` carrying the 19 tools and 5 resources, used by the
 * HTTP endpoint (one per request) and by stdio (one per process).
 *
 * Construction is kept cheap because stateless HTTP builds a server for every POST: the
 * `tools/list` answer (JSON Schema of 38 zod schemas) is computed once per process, resource
 * markdown once per context, and the JSON Schema validator is shared instead of the SDK building
 * an Ajv instance per server.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { ListToolsRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../../package.json' with { type: 'json' };
import type { ContractContext } from '../context.ts';
import { mcpResources, type McpResource } from './resources.ts';
import { callTool } from './tool.ts';
import { mcpTools, toolDefinitions } from './tools/index.ts';

/** `serverInfo.name` reported on `initialize`. */
export const MCP_SERVER_NAME = 'cellgate';

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
 * Builds an MCP server exposing the contract API of `context`. Connect it to any SDK transport.
 *
 * @example
 * const server = createMcpServer(createContractContext());
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(context: ContractContext): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: 'cellgate contract API', version: pkg.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: (sharedValidator ??= new AjvJsonSchemaValidator()),
    },
  );
  for (const tool of mcpTools) {
    // Only the input schema goes to the SDK (it validates arguments with it); output schemas are
    // checked in callTool, and the listing below is precomputed.
    server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.input }, (args) =>
      callTool(tool, context, args as Record<string, unknown>),
    );
  }
  for (const resource of mcpResources) {
    server.registerResource(
      resource.name,
      resource.uri,
      { title: resource.title, description: resource.description, mimeType: 'text/markdown' },
      () => readResource(context, resource),
    );
  }
  const tools = toolDefinitions();
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  return server;
}
