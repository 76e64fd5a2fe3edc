/**
 * The 19 tools of docs/contract-conventions.md#mcp-tools-and-resources, in its order, and their `tools/list` entries,
 * computed once per process: converting 19 zod schemas pairs to JSON Schema costs far more than
 * answering a call, so no request pays for it twice.
 */
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/server';
import type { McpTool } from '../tool.ts';
import { discoveryTools } from './discovery.ts';
import { registryTools } from './registry.ts';
import { primitiveTools } from './primitives.ts';
import { guidanceTools } from './guidance.ts';
import { validationTools } from './validation.ts';

/** Every tool, in docs/contract-conventions.md order. */
export const mcpTools: readonly McpTool[] = [...discoveryTools, ...registryTools, ...primitiveTools, ...guidanceTools, ...validationTools];

/**
 * Draft-07 like the SDK's own conversion, so the SDK client's Ajv validates with it unchanged.
 * A schema registered with an id comes out as a bare `$ref`; clients read `properties` at the
 * root, so the referenced definition is hoisted there (the definitions stay for inner refs).
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  let json = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  const ref = json['$ref'];
  const definitions = json['definitions'] as Record<string, Record<string, unknown>> | undefined;
  if (typeof ref === 'string' && ref.startsWith('#/definitions/') && definitions) {
    const name = ref.slice('#/definitions/'.length);
    const { [name]: root, ...others } = definitions;
    const { $ref: _ref, definitions: _all, ...rest } = json;
    // Keep the hoisted definition only if something still points at it (a recursive schema).
    const referenced = JSON.stringify([root, others]).includes(`"${ref}"`);
    const kept = referenced ? definitions : others;
    json = { ...rest, ...root, ...(Object.keys(kept).length > 0 ? { definitions: kept } : {}) };
  }
  // MCP requires an object schema at the root; a union of object shapes is still an object.
  return { ...json, type: 'object' } as Tool['inputSchema'];
}

let listed: Tool[] | undefined;

/** The `tools/list` entries (memoised). */
export function toolDefinitions(): Tool[] {
  return (listed ??= mcpTools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input, 'input'),
    outputSchema: jsonSchemaOf(tool.output, 'output'),
    // Only scaffold_primitive can write, and never over an existing file.
    annotations: { title: tool.title, readOnlyHint: tool.name !== 'scaffold_primitive', destructiveHint: false, openWorldHint: false },
  })));
}
