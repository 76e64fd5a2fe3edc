/**
 * The two result shapes every tool returns (docs/decisions/A19.md): a success carries a markdown summary,
 * the REST answer as JSON text and the same data as `structuredContent`; an application error
 * carries `isError: true` and a message naming the tool to call instead.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { CellgateError } from '../../errors.ts';

/**
 * A successful tool result. `data` is exactly what the REST twin answers (serialised compactly,
 * like the REST body); `structured` is that data as an object (arrays are wrapped, because MCP
 * requires `structuredContent` to be an object).
 */
export function toolResult(summary: string, data: unknown, structured: Record<string, unknown>): CallToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(data) },
    ],
    structuredContent: structured,
  };
}

/** An application error as a tool result, so the agent reads the message and can recover. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true };
}

/**
 * Runs a tool body; a {@link CellgateError} (unknown key, bad filter value) becomes a
 * {@link toolError}, followed by `hint` (what to call instead) unless the message already names a
 * tool. Anything else is a bug: the agent gets a generic error with a correlation id, never the
 * internal message (the SDK would otherwise pass `error.message` through).
 */
export async function guarded(body: () => CallToolResult | Promise<CallToolResult>, hint?: string): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof CellgateError)) {
      return toolError(`An unexpected error occurred (correlation id ${crypto.randomUUID()}). Retry, or report it with the correlation id.`);
    }
    const message = describeError(error);
    return toolError(hint && !/\b[a-z]+_[a-z_]+\b/.test(error.message) ? `${message}\n${hint}` : message);
  }
}

/** The message of a wire error, with the offending fields of a VALIDATION_ERROR spelled out. */
function describeError(error: CellgateError): string {
  const fields = error.details?.['fields'];
  if (!Array.isArray(fields) || fields.length === 0) return error.message;
  const lines = fields
    .filter((f: { message?: unknown }) => !error.message.includes(String(f.message)))
    .map((f: { path?: unknown; message?: unknown }) => `- ${String(f.path)}: ${String(f.message)}`);
  return lines.length === 0 ? error.message : `${error.message}\n${lines.join('\n')}`;
}
