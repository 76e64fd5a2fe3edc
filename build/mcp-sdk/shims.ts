/**
 * What cellgate's build gives the MCP server SDK for its `@modelcontextprotocol/server/_shims`
 * import. The SDK picks that module by export condition (Node, workerd, browser) when an app's
 * bundler or Node resolves it; bundled into cellgate's dist it would be picked once, at build
 * time, and the Node one imports `node:process`, which a Worker cannot load. cellgate never uses
 * the SDK's defaults: every server gets an explicit Ajv validator (src/contract/mcp/server.ts)
 * and the stdio transport explicit streams (src/contract/mcp/stdio.ts). So this shim gives the
 * same validator class and the host's own `process`, with no import of a Node built-in.
 */
export { AjvJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';

/** The host's `process` (Node, Bun, Deno) or `undefined` on runtimes without one. */
export const process = (globalThis as { process?: NodeJS.Process }).process;
