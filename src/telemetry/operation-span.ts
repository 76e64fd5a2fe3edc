/**
 * One span per governed operation called in code (`service.create(...)` and the rest, without
 * HTTP): named `cellgate {operation} {resourceType}`, INTERNAL, a child of the active context, with
 * the same cellgate attributes as the HTTP spans (docs/observability.md#spans). Without a
 * registered SDK it costs one property read and allocates nothing.
 */
import { CellgateError } from '../errors.ts';
import { currentTracing, ROOT_CONTEXT, SpanKind } from './otel-globals.ts';
import { CellgateAttributes, endSpan } from './request-span.ts';

/** The record version of a single-record answer (`{ data: { version } }`), if it is one. */
function versionOf(result: unknown): number | undefined {
  const version = (result as { data?: { version?: unknown } } | null)?.data?.version;
  return typeof version === 'number' ? version : undefined;
}

const INVALID_TRACE_ID = '0'.repeat(32);

/**
 * Runs `run` in a span of `operation` on `resourceType`, passing the span's trace id (for the
 * audit record and event of a write; undefined without tracing). A thrown error ends the span with
 * its code and is thrown on.
 */
export async function traceOperation<T>(operation: string, resourceType: string, run: (traceId?: string) => Promise<T>): Promise<T> {
  const tracing = currentTracing();
  if (tracing === undefined) return run();
  const span = tracing.tracer.startSpan(
    `cellgate ${operation} ${resourceType}`,
    { kind: SpanKind.INTERNAL, attributes: { [CellgateAttributes.operation]: operation, [CellgateAttributes.resourceType]: resourceType } },
    tracing.contexts?.active() ?? ROOT_CONTEXT,
  );
  try {
    const { traceId } = span.spanContext();
    const result = await run(traceId === INVALID_TRACE_ID ? undefined : traceId);
    const version = versionOf(result);
    if (version !== undefined) span.setAttribute(CellgateAttributes.version, version);
    endSpan(span, undefined);
    return result;
  } catch (error) {
    endSpan(span, error instanceof CellgateError ? error.code : 'INTERNAL_ERROR');
    throw error;
  }
}
