/**
 * MCP for the contract API (docs/contract-conventions.md#mcp-tools-and-resources, docs/decisions/A18.md, docs/decisions/A19.md): the 19 tools and
 * 5 resources as an `McpServer`, and the stateless Streamable HTTP endpoint that
 * `createContractHandler` mounts. Runtime-neutral; the stdio server lives in `./stdio.ts`.
 */
export { createMcpEndpoint, DEFAULT_MCP_PATH, type McpOptions } from './endpoint.ts';
export type { AllowList, OriginGuardOptions } from './origin-guard.ts';
export { createMcpServer, MCP_SERVER_NAME } from './server.ts';
export { mcpTools, toolDefinitions } from './tools/index.ts';
export { mcpResources, type McpResource } from './resources.ts';
export type { McpTool, ToolAnswer } from './tool.ts';
