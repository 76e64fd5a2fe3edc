/**
 * How one MCP tool is declared: its name, an agent-facing description, the zod schemas of its
 * arguments and of its `structuredContent` (the same schemas the REST API validates and documents
 * with), and a `run` that calls the shared service and says how to summarise the answer.
 */
import type { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ContractContext } from '../context.ts';
import type { QuickCheck } from '../schema/quick-check.ts';
import { guarded, toolResult } from './result.ts';
import { currentTracing, type OtelContext } from '../../telemetry/otel-globals.ts';
import { traceToolCall } from '../../telemetry/tool-span.ts';

/** What a tool body produces: the REST data, its markdown summary and, for arrays, the wrapped object. */
export interface ToolAnswer {
  /** Short markdown for `content[0]`. */
  summary: string;
  /** Exactly the REST answer; serialised into `content[1]`. */
  data: unknown;
  /** `structuredContent`; defaults to `data` (which must then be an object). */
  structured?: Record<string, unknown>;
}

/** What the endpoint learned about a call at its edge, for tools that can use it. */
export interface ToolCallFacts {
  /**
   * Length of the JSON text the call arrived in, whose nesting the endpoint bounded: a validator
   * skips its walk of the document bounds when the text is too short to exceed them.
   */
  textLength?: number;
  /** The tool's {@link McpTool.shallowArguments} check proved the arguments; the endpoint skipped its depth scan. */
  argumentsProven?: boolean;
}

/** One of the 19 tools. */
export interface McpTool<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** When to use it, what comes back, what to call next. */
  description: string;
  /** Arguments; the SDK validates calls against it and lists its JSON Schema. */
  input: I;
  /**
   * Shape of `structuredContent`, listed as the tool's `outputSchema`. An object schema, or a
   * union of object schemas (the JSON Schema listed for it then gets `type: "object"` at its
   * root). Not re-checked on every call: the data comes from the same services the REST API
   * answers with, and the tests check every tool's result against the listed schema.
   */
  output: z.ZodType;
  /**
   * A check that proves arguments well formed, exactly as the input schema would return them,
   * and nested no deeper than a client body may be (the arguments object at level 1). For a call
   * it proves, the endpoint's direct path skips its scan of the message text for nesting depth,
   * and `run` sees `facts.argumentsProven`. Built on first use.
   */
  shallowArguments?: () => QuickCheck;
  /** Appended to an application error when its message names no tool: what to call instead. */
  hint?: string;
  /** Computes the answer; a thrown CellgateError becomes an `isError` result. */
  run(context: ContractContext, args: z.output<I>, facts: ToolCallFacts): ToolAnswer | Promise<ToolAnswer>;
}

/** Declares a tool with its argument type inferred from `input`. */
export function defineTool<I extends z.ZodObject>(tool: McpTool<I>): McpTool {
  return tool as unknown as McpTool;
}

/**
 * Runs a tool for one call (its arguments already checked by the SDK) and shapes the result (A19),
 * in a span under `parent` when an OpenTelemetry SDK is registered.
 */
export function callTool(
  tool: McpTool,
  context: ContractContext,
  args: Record<string, unknown>,
  parent?: OtelContext,
  facts: ToolCallFacts = {},
): Promise<CallToolResult> {
  // Arrows passed straight as arguments: nothing named is made per call (docs/architecture.md, "Performance model").
  const tracing = currentTracing();
  if (tracing === undefined) return guarded(() => runTool(tool, context, args, facts), tool.hint);
  return guarded(() => traceToolCall(tracing, tool.name, parent, () => runTool(tool, context, args, facts)), tool.hint);
}

/** Runs a tool and shapes its answer as a `CallToolResult`. */
async function runTool(tool: McpTool, context: ContractContext, args: Record<string, unknown>, facts: ToolCallFacts): Promise<CallToolResult> {
  const answer = await tool.run(context, args, facts);
  return toolResult(answer.summary, answer.data, answer.structured ?? (answer.data as Record<string, unknown>));
}

/** Wraps an array answer for `structuredContent`, which must be an object: `{ [member]: items }`. */
export function wrapped<T>(member: string, items: T[]): Record<string, unknown> {
  return { [member]: items };
}

/** Markdown bullet list, at most `limit` lines with a "… and N more" tail. */
export function bullets(lines: string[], limit = 40): string {
  const shown = lines.slice(0, limit).map((line) => `- ${line}`);
  if (lines.length > limit) shown.push(`- … and ${lines.length - limit} more (see the JSON block)`);
  return shown.join('\n');
}
