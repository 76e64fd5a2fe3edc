/**
 * What both transports refuse themselves, before the SDK dispatches a message, because the SDK
 * would answer it badly:
 * - a message nested deeper than the JSON depth limit: everything recursive after it (zod, the
 *   validators) could overflow the stack, which the SDK reports as -32603;
 * - `tools/call` with `arguments` that is not an object, and `initialize` / `resources/read` /
 *   `tools/call` whose params have the wrong types: the SDK's request schemas reject those as
 *   -32603 (internal error) with raw zod text, for what is the caller's mistake.
 * - a tool name or resource URI longer than any the server has: the SDK's "not found" would quote
 *   it whole.
 * Each gets -32602 (invalid params) with a one-line message instead.
 */
import { specTypeSchemas, type JSONRPCErrorResponse, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { valueNestingDepth } from '../../http/json.ts';
import { MAX_JSON_DEPTH, MAX_MCP_NAME_LENGTH, MAX_MCP_URI_LENGTH } from '../../limits.ts';

/** JSON-RPC "invalid params". */
const INVALID_PARAMS = -32602;

/**
 * Deepest nesting a JSON-RPC message may have: the limit of a REST body plus the two envelope
 * levels (the message and its `params`), so tool `arguments` get exactly the REST body's depth.
 */
export const MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 2;

/** A JSON-RPC error answer to one request. */
export type JsonRpcError = JSONRPCErrorResponse;

/**
 * The SDK's own params schemas for the requests whose bad params it would answer with -32603.
 * `tools/call`, the hot path, is checked by hand instead (a string `name`, an object `arguments`):
 * those are the only members the SDK's schema requires.
 */
const PARAMS: ReadonlyMap<string, StandardSchemaV1> = new Map<string, StandardSchemaV1>([
  ['initialize', specTypeSchemas.InitializeRequestParams],
  ['resources/read', specTypeSchemas.ReadResourceRequestParams],
]);

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function invalidParams(id: unknown, message: string): JsonRpcError {
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : (null as unknown as string),
    error: { code: INVALID_PARAMS, message: `Invalid params: ${message}` },
  };
}

/** The first problem the SDK's schema finds in `params`, as `"path" must be …` (never raw zod text). */
function paramsProblem(method: string, params: unknown): string | undefined {
  // A Map, not an object literal: `method` is the client's, and `toString` or `__proto__` would
  // otherwise find a member of Object.prototype.
  const schema = PARAMS.get(method);
  if (schema === undefined) return undefined;
  const result = schema['~standard'].validate(params ?? {});
  if (result instanceof Promise || !result.issues || result.issues.length === 0) return undefined;
  const issue = result.issues[0]!;
  const path = (issue.path ?? []).map((key) => (typeof key === 'object' ? key.key : key)).join('.');
  const expected = (issue as { expected?: unknown }).expected;
  const what = typeof expected === 'string' ? `must be ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}` : 'is not valid';
  return `${method} ${path === '' ? 'params' : `"${path}"`} ${what}.`;
}

/** The refusal for one JSON-RPC message, or `undefined` when the SDK may have it. */
export function refusal(message: unknown, checkDepth = true): JsonRpcError | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (checkDepth && valueNestingDepth(message, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH) {
    return invalidParams(id, `the request is nested deeper than ${MAX_JSON_DEPTH} levels inside its params.`);
  }
  if (typeof method !== 'string' || id === undefined) return undefined;
  if (method === 'tools/call') {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return invalidParams(id, 'tools/call params must be an object.');
    const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string') return invalidParams(id, `tools/call "name" must be a string, received ${describe(name)}.`);
    if (name.length > MAX_MCP_NAME_LENGTH) return invalidParams(id, `tools/call "name" must be at most ${MAX_MCP_NAME_LENGTH} characters.`);
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return invalidParams(id, `tools/call "arguments" must be an object, received ${describe(args)}.`);
    }
    return undefined;
  }
  const problem = paramsProblem(method, params);
  if (problem !== undefined) return invalidParams(id, problem);
  if (method === 'resources/read' && (params as { uri: string }).uri.length > MAX_MCP_URI_LENGTH) {
    return invalidParams(id, `resources/read "uri" must be at most ${MAX_MCP_URI_LENGTH} characters.`);
  }
  return undefined;
}

/**
 * Splits a parsed body (one message or a batch) into the refusals answered here and the rest for
 * the SDK (`undefined` when nothing is left for it). `checkDepth: false` when the caller already
 * knows the body is shallow enough (a linear scan of its text said so).
 */
export function refuseInvalid(message: unknown, checkDepth = true): { refused: JsonRpcError[]; rest: unknown } {
  if (!Array.isArray(message)) {
    const error = refusal(message, checkDepth);
    return error ? { refused: [error], rest: undefined } : { refused: [], rest: message };
  }
  const refused: JsonRpcError[] = [];
  const rest: unknown[] = [];
  for (const item of message) {
    const error = refusal(item, checkDepth);
    if (error) refused.push(error);
    else rest.push(item);
  }
  return { refused, rest: rest.length > 0 ? rest : undefined };
}
