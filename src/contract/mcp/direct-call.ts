/**
 * The direct path of `tools/call`: one plain call of one of our tools, with arguments its schema
 * accepts, answered without building an SDK server for it.
 *
 * Why: the SDK's stateless serving builds a server, a transport and the protocol's per-request
 * state for every POST, and re-validates the JSON-RPC message and the result with its own zod
 * schemas; for `validate_manifest` that machinery costs more than the validation itself. The
 * protocol decisions stay the SDK's: the era, the `_meta` envelope and the header/body cross-checks
 * come from its exported `classifyInboundRequest`, and anything this path does not recognise
 * exactly (batches, notifications, `initialize`, unknown tools, arguments the schema refuses, a
 * Base64-encoded `Mcp-Name`, extra params such as `task`, a 2025-era `_meta`) is left to the SDK.
 * The tool runs through the same {@link callTool} as on the SDK path, and tests compare the two
 * answers byte for byte for every tool and both revisions.
 */
import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import type { ContractContext } from '../context.ts';
import { MAX_JSON_DEPTH, MCP_ENVELOPE_CACHE_ENTRIES, MCP_ENVELOPE_CACHE_KEY_LENGTH } from '../../limits.ts';
import { lightResponse } from '../../http/light-response.ts';
import { valueNestingDepth } from '../../http/json.ts';
import { compileQuickCheck, type QuickCheck } from '../schema/quick-check.ts';
import { JSON_RPC_HEADERS } from './single-exchange.ts';
import { requestSpanOf } from '../../telemetry/request-span.ts';
import { SERVER_INFO } from './server.ts';
import { callTool, type McpTool } from './tool.ts';
import { mcpTools } from './tools/index.ts';

/** The revision this path answers for envelope-carrying requests; others go to the SDK. */
const MODERN_REVISION = '2026-07-28';
/** The protocol revisions served without a handshake (a `_meta` claim on every request). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = [MODERN_REVISION];

const toolsByName = new Map<string, McpTool>(mcpTools.map((tool) => [tool.name, tool]));

/** Per tool, a check proving arguments its input schema would return unchanged (compiled on first call). */
const exactArguments = new Map<McpTool, QuickCheck>();

/**
 * The arguments the tool receives: `args` itself when the compiled check proves zod would return
 * them unchanged (no unknown key to strip, no default to fill), else zod's output; `undefined`
 * when the schema refuses them (the SDK then answers).
 */
function toolArguments(tool: McpTool, args: Record<string, unknown>): Record<string, unknown> | undefined {
  let exact = exactArguments.get(tool);
  if (exact === undefined) exactArguments.set(tool, (exact = compileQuickCheck(tool.input, { exact: true })));
  if (exact(args)) return args;
  const checked = tool.input.safeParse(args);
  return checked.success ? checked.data : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Trims the optional whitespace HTTP allows around a header value, as the SDK does. */
function header(request: Request, name: string): string | undefined {
  return request.headers.get(name)?.trim() ?? undefined;
}

/**
 * A 2025-era request as the SDK classifies it ("no claim"): no `_meta` at all, so no envelope
 * claim, and no protocol-version header naming a modern revision. Decided here without the SDK's
 * classifier, whose zod checks of the whole message are most of what this path would cost.
 */
function isLegacyCall(request: Request, params: Record<string, unknown>): boolean {
  const version = header(request, 'mcp-protocol-version');
  const legacyVersion = version === undefined || (SUPPORTED_PROTOCOL_VERSIONS.includes(version) && !MODERN_PROTOCOL_VERSIONS.includes(version));
  return params['_meta'] === undefined && legacyVersion;
}

/** The SDK classifier's verdict per envelope key (bounded: see src/limits.ts). */
const envelopeVerdicts = new Map<string, boolean>();

/** Longest version claim {@link envelopeKey} names without serialising (real revisions are dates). */
const SHORT_CLAIM = 32;

/**
 * What identifies `meta` for the verdict cache. The usual envelope (a version claim and an empty
 * capability object, nothing else) is named by its claim alone, behind a NUL no JSON text starts
 * with; its verdict is still the classifier's, computed once. Any other envelope is keyed by its
 * JSON text: serialising it costs about as much as the rest of the direct path's checks.
 */
function envelopeKey(meta: unknown): string {
  if (isPlainObject(meta)) {
    const version = meta[PROTOCOL_VERSION_META_KEY];
    const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
    if (
      typeof version === 'string' &&
      version.length <= SHORT_CLAIM &&
      isPlainObject(capabilities) &&
      ownKeyCount(meta) === 2 &&
      ownKeyCount(capabilities) === 0
    ) {
      return `\u0000${version}`;
    }
  }
  return JSON.stringify(meta);
}

/** Enumerable own keys of a plain object parsed from JSON, counted without building a list. */
function ownKeyCount(value: Record<string, unknown>): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count++;
  return count;
}

/**
 * Whether the SDK classifies a `tools/call` carrying `meta` as a valid 2026-07-28 request, given the
 * standard headers already matched. The classifier reads the envelope, the method and the name;
 * the arguments (checked afterwards with the tool's schema) are left out so its zod checks do not
 * walk them. The verdict depends on the envelope alone, so it is remembered per envelope text.
 */
function modernEnvelope(id: string | number, name: string, meta: unknown): boolean {
  const key = envelopeKey(meta);
  const known = envelopeVerdicts.get(key);
  if (known !== undefined) return known;
  const body = { jsonrpc: '2.0', id, method: 'tools/call', params: { name, _meta: meta } };
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    body,
    protocolVersionHeader: MODERN_REVISION,
    mcpMethodHeader: 'tools/call',
    mcpNameHeader: name,
  });
  const verdict = route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === MODERN_REVISION;
  if (key.length <= MCP_ENVELOPE_CACHE_KEY_LENGTH) {
    if (envelopeVerdicts.size >= MCP_ENVELOPE_CACHE_ENTRIES) envelopeVerdicts.delete(envelopeVerdicts.keys().next().value!);
    envelopeVerdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * Whether a request with a `_meta` is a valid 2026-07-28 request naming exactly this call: the
 * three standard headers the SDK requires, in their plain form (no Base64 `Mcp-Name`), and an
 * envelope the SDK's classifier accepts.
 */
function isModernCall(request: Request, id: string | number, name: string, meta: unknown): boolean {
  // No envelope at all is not a modern call: the SDK answers it (-32602), and `JSON.stringify` has no
  // text for `undefined` to key the verdict cache with.
  if (meta === undefined) return false;
  const plainHeaders =
    header(request, 'mcp-protocol-version') === MODERN_REVISION && header(request, 'mcp-method') === 'tools/call' && header(request, 'mcp-name') === name;
  return plainHeaders && modernEnvelope(id, name, meta);
}

/** Per tool, its compiled {@link McpTool.shallowArguments} check. */
const shallowChecks = new Map<McpTool, QuickCheck>();

/**
 * Before the endpoint's depth scan: whether the call's arguments and envelope are proven within
 * the message depth limit, so the scan may be skipped. The tool must prove its arguments (see
 * {@link McpTool.shallowArguments}); the `_meta` envelope sits at the arguments' level and is walked.
 */
function provenShallow(tool: McpTool, args: Record<string, unknown>, meta: unknown): boolean {
  if (tool.shallowArguments === undefined) return false;
  if (meta !== undefined && valueNestingDepth(meta, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return false;
  let check = shallowChecks.get(tool);
  if (check === undefined) shallowChecks.set(tool, (check = tool.shallowArguments()));
  return check(args);
}

/**
 * Answers `message` when it is a plain `tools/call` this path handles (see the module comment),
 * else returns `undefined` and the caller hands the request to the SDK. Call it only for a request
 * that passed the endpoint's own guards (origin, method, content type, protocol version) and, when
 * `depthScanned`, its depth scan; `textLength` is the length of the JSON text `message` was parsed
 * from. Without the scan, only a call whose tool proves its arguments shallow is answered (the
 * message then nests no deeper than the scan allows: its other members are checked flat here).
 */
export function directToolCall(
  context: ContractContext,
  request: Request,
  message: unknown,
  textLength?: number,
  depthScanned = true,
): Promise<Response> | undefined {
  if (!isPlainObject(message) || message['method'] !== 'tools/call' || message['jsonrpc'] !== '2.0') return undefined;
  // A JSON-RPC request and nothing else (no `result`/`error` beside it), with an id the SDK accepts.
  for (const key in message) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  const { id, params } = message;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))) || !isPlainObject(params)) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  const { name, arguments: args } = params;
  const tool = typeof name === 'string' ? toolsByName.get(name) : undefined;
  if (tool === undefined || !isPlainObject(args)) return undefined;
  const proven = !depthScanned && provenShallow(tool, args, params['_meta']);
  if (!depthScanned && !proven) return undefined;
  const era = isLegacyCall(request, params) ? 'legacy' : isModernCall(request, id, tool.name, params['_meta']) ? 'modern' : undefined;
  if (era === undefined) return undefined;
  // The SDK's one argument check, with the same schema: its output is what the tool receives.
  const checked = proven ? args : toolArguments(tool, args);
  if (checked === undefined) return undefined;
  return callTool(tool, context, checked, requestSpanOf(request)?.context, { textLength, argumentsProven: proven }).then((result) =>
    lightResponse(answerText(result, era === 'modern', id), 200, JSON_RPC_HEADERS),
  );
}

/** What a 2026-07-28 result carries after the tool's own members, as JSON text (the same on every answer). */
const MODERN_RESULT_TAIL = `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO })}}`;

/**
 * The JSON-RPC answer carrying `result`: the text `JSON.stringify` gives for
 * `{ result, jsonrpc, id }`, with a modern result's constant members (`resultType`, the server
 * info in `_meta`) appended as text rather than copied into the result and serialised again.
 * Tool results have neither member of their own, and always at least `content`.
 */
export function answerText(result: CallToolResult, modern: boolean, id: string | number): string {
  const text = JSON.stringify(result);
  const body = modern ? text.slice(0, -1) + MODERN_RESULT_TAIL : text;
  return `{"result":${body},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}
