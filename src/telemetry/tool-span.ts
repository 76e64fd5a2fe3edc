/**
 * One span per MCP tool call (docs/observability.md#spans), named and attributed after the MCP
 * semantic conventions (`tools/call {tool}`, `mcp.method.name`, `gen_ai.tool.name`), a child of the
 * HTTP request's span (passed in, as the SDK's handlers may run outside the request's async
 * context) or of the active context (stdio).
 */
import { CellgateError } from '../errors.ts';
import { ROOT_CONTEXT, SpanKind, type OtelContext, type Tracing } from './otel-globals.ts';
import { CellgateAttributes, endSpan } from './request-span.ts';

/** What a tool body answers: MCP's result, `isError` set for an application error. */
interface ToolOutcome {
  isError?: boolean;
}

/**
 * Runs one tool call in a span. A thrown error ends the span with its code (`INTERNAL_ERROR` for
 * anything but a `CellgateError`) and is thrown on; the caller turns it into the tool's error result.
 */
export async function traceToolCall<R extends ToolOutcome>(tracing: Tracing, name: string, parent: OtelContext | undefined, run: () => Promise<R>): Promise<R> {
  const span = tracing.tracer.startSpan(
    `tools/call ${name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, [CellgateAttributes.operation]: name },
    },
    parent ?? tracing.contexts?.active() ?? ROOT_CONTEXT,
  );
  try {
    const result = await run();
    endSpan(span, result.isError === true ? 'TOOL_ERROR' : undefined);
    return result;
  } catch (error) {
    endSpan(span, error instanceof CellgateError ? error.code : 'INTERNAL_ERROR');
    throw error;
  }
}
