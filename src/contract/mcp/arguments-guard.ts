/**
 * `tools/call` with `arguments` that is not an object. The SDK's request schema rejects it as
 * -32603 (internal error), which tells a client the server failed, for what is the client's
 * mistake. Both transports answer it here with -32602 (invalid params) instead, before the SDK
 * sees it.
 */

/** JSON-RPC "invalid params". */
const INVALID_PARAMS = -32602;

/** A JSON-RPC error answer to one request. */
export type JsonRpcError = { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };

/** The error for a `tools/call` whose `arguments` is present but not an object, else `undefined`. */
export function nonObjectArguments(message: unknown): JsonRpcError | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const args = (params as { arguments?: unknown }).arguments;
  if (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args))) return undefined;
  const received = args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`;
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code: INVALID_PARAMS, message: `Invalid params: tools/call "arguments" must be an object, received ${received}.` },
  };
}

/**
 * Answers the `tools/call` requests whose `arguments` is not an object with -32602 (invalid
 * params) itself: the SDK's request schema rejects them as -32603, an internal error, for what is
 * the caller's mistake. Returns the answers and the rest of the message for the SDK (`undefined`
 * when nothing is left for it).
 */
export function refuseNonObjectArguments(message: unknown): { refused: JsonRpcError[]; rest: unknown } {
  if (!Array.isArray(message)) {
    const error = nonObjectArguments(message);
    return error ? { refused: [error], rest: undefined } : { refused: [], rest: message };
  }
  const refused: JsonRpcError[] = [];
  const rest: unknown[] = [];
  for (const item of message) {
    const error = nonObjectArguments(item);
    if (error) refused.push(error);
    else rest.push(item);
  }
  return { refused, rest: rest.length > 0 ? rest : undefined };
}
