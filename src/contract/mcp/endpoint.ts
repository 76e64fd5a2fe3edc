/**
 * The MCP endpoint: one Fetch function answering POST on the MCP path, for both protocol
 * revisions, from the SDK's 2.x server package.
 * - 2026-07-28 (a `_meta` protocol-version claim on every request): the SDK's `createMcpHandler`,
 *   stateless by design (no `initialize`, no session, `server/discover`, header checks, `resultType`
 *   and cache fields on results).
 * - 2025-11-25 and older (no claim): a fresh server on the SDK's stateless Streamable HTTP transport
 *   in JSON-response mode, so curl-style clients get a plain JSON body.
 * Both build the server per request from one definition ({@link createMcpServer}). Everything
 * refused cheaply (origin, method, depth, bad params) is refused before that construction.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import type { ContractContext } from '../context.ts';
import { CellgateError } from '../../errors.ts';
import { clipErrorText } from '../../error-text.ts';
import { isJsonContentType, readTextBody } from '../../http/body.ts';
import { jsonNestingDepth } from '../../http/json.ts';
import { MAX_ERROR_TEXT_LENGTH } from '../../limits.ts';
import { lightResponse } from '../../http/light-response.ts';
import { MAX_MESSAGE_DEPTH, refuseInvalid } from './request-guard.ts';
import { refusedOrigin, type OriginGuardOptions } from './origin-guard.ts';
import { createMcpServer, requestScope, type ServerScope } from './server.ts';
import { isPlainRequest, SingleExchangeTransport } from './single-exchange.ts';
import { directToolCall, MODERN_PROTOCOL_VERSIONS } from './direct-call.ts';

/**
 * Options of the MCP endpoint (`createContractHandler({ mcp })`).
 *
 * @example
 * createContractHandler({ mcp: { path: '/agents/mcp', allowedHosts: ['api.example.com'] } });
 */
export interface McpOptions extends OriginGuardOptions {
  /**
   * Path the endpoint answers on (below the handler's base path).
   * @default '/mcp'
   */
  path?: string;
}

/** Switches for tests; not part of the public options. */
export interface EndpointInternals {
  /**
   * Answer plain `tools/call` requests on the direct path (see direct-call.ts); `false` sends
   * everything through the SDK, so tests can compare the two answers.
   * @default true
   */
  direct?: boolean;
}

/** Default path of the MCP endpoint. */
export const DEFAULT_MCP_PATH = '/mcp';

/** JSON-RPC error codes used by the transport layer (the SDK's own values). */
const SERVER_ERROR = -32000;
const PARSE_ERROR = -32700;

/** A JSON-RPC error answer with no request id, the shape the SDK transport uses for HTTP-level refusals. */
export function jsonRpcErrorResponse(status: number, code: number, message: string, headers?: Record<string, string>): Response {
  // A light Response (see http/light-response.ts): the Node adapters write the text directly.
  return lightResponse(
    JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
    status,
    new Headers({ 'content-type': 'application/json', ...headers }),
  );
}

function jsonRpcAnswer(body: unknown): Response {
  return lightResponse(JSON.stringify(body), 200, new Headers({ 'content-type': 'application/json' }));
}

function acceptsMcp(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('application/json') && accept.includes('text/event-stream');
}

function newTransport(bodyLimit: number): WebStandardStreamableHTTPServerTransport {
  // JSON responses, not SSE: every tool answers at once, and a plain JSON body is cheaper to build
  // and easier for curl-style clients. No sessionIdGenerator = stateless mode.
  return new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: bodyLimit,
  });
}

function knownVersion(version: string | null): boolean {
  return version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version) || MODERN_PROTOCOL_VERSIONS.includes(version);
}

/**
 * Builds the Fetch function serving MCP for `context`. It answers any method (call it only for
 * requests on the MCP path): POST carries JSON-RPC; GET and DELETE get 405 because a stateless
 * server has no stream to resume and no session to end; a refused `Host`/`Origin` gets 403.
 *
 * @example
 * const mcp = createMcpEndpoint(createContractContext(), {});
 * const response = await mcp(new Request('http://localhost/mcp', { method: 'POST', headers, body }));
 */
export function createMcpEndpoint(
  context: ContractContext,
  options: McpOptions = {},
  internal: EndpointInternals = {},
): (request: Request) => Promise<Response> {
  const guard: OriginGuardOptions = { allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins };
  // The modern leg's factory gets the request, not its parsed body: the scope travels beside it.
  const scopes = new WeakMap<Request, ServerScope>();
  const factory = ({ requestInfo }: McpRequestContext) => createMcpServer(context, requestInfo ? scopes.get(requestInfo) : undefined);
  // 'auto' answers with one JSON body, as no tool sends anything before its result ('json'
  // would say the same, with a console warning at construction).
  const modern = createMcpHandler(factory, { legacy: 'reject', responseMode: 'auto', maxRequestBodySize: context.bodyLimit });

  /** `checked`: the protocol-version header is absent or one this endpoint serves. */
  async function serve(request: Request, message: unknown, checked = true): Promise<Response> {
    if (await isLegacyRequest(request, message, { maxRequestBodySize: context.bodyLimit })) {
      return boundedRefusal(await (checked && isPlainRequest(message) ? serveOne(context, request, message) : serveLegacy(context, request, message)));
    }
    scopes.set(request, requestScope(message, request));
    return boundedRefusal(await modern.fetch(request, { parsedBody: message }));
  }

  return async (request) => {
    const refusal = refusedOrigin(request, guard);
    if (refusal !== undefined) return jsonRpcErrorResponse(403, SERVER_ERROR, refusal);
    if (request.method !== 'POST') {
      return jsonRpcErrorResponse(405, SERVER_ERROR, 'Method Not Allowed. Use POST for MCP requests.', { allow: 'POST' });
    }
    // Accept/Content-Type refusals are the SDK's own (406/415); its transport answers them before
    // touching the body or needing a server.
    if (!acceptsMcp(request) || !isJsonContentType(request.headers.get('content-type'))) {
      return newTransport(context.bodyLimit).handleRequest(request);
    }
    let message: unknown;
    let text: string;
    try {
      text = await readTextBody(request, context.bodyLimit);
      message = JSON.parse(text);
    } catch (error) {
      if (error instanceof CellgateError) return jsonRpcErrorResponse(error.status, SERVER_ERROR, error.message);
      return jsonRpcErrorResponse(400, PARSE_ERROR, 'Parse error: Invalid JSON');
    }
    // An unsupported protocol version is the SDK's refusal (400) before anything else.
    if (!knownVersion(request.headers.get('mcp-protocol-version'))) return serve(request, message, false);
    // A plain tools/call whose tool proves its arguments within the depth limit needs no scan.
    const proven = internal.direct !== false ? directToolCall(context, request, message, text.length, false) : undefined;
    if (proven) return proven;
    // One linear scan of the text; only a body that is too deep somewhere is walked message by message.
    const deep = text.length > MAX_MESSAGE_DEPTH && jsonNestingDepth(text, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH;
    const { refused, rest } = refuseInvalid(message, deep);
    if (refused.length > 0) {
      if (rest === undefined) return jsonRpcAnswer(Array.isArray(message) ? refused : refused[0]);
      // A batch: the SDK answers the rest, and the refusals join its answers.
      const answered = await serve(request, rest);
      const answers: unknown = answered.status === 200 ? await answered.json() : [];
      return jsonRpcAnswer([...(Array.isArray(answers) ? answers : [answers]), ...refused]);
    }
    return (internal.direct !== false && directToolCall(context, request, message, text.length)) || serve(request, message);
  };
}

/**
 * An SDK refusal (a non-2xx JSON answer) with every string in its `error` (the message, and
 * `data`, which may quote the request too) cut to {@link MAX_ERROR_TEXT_LENGTH}; any other
 * answer as it is. Only refusals are read, so results pass through untouched.
 */
async function boundedRefusal(response: Response): Promise<Response> {
  if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  let text = await response.text();
  if (text.length > MAX_ERROR_TEXT_LENGTH) {
    try {
      const body = JSON.parse(text) as { error?: unknown };
      if (body.error !== undefined) body.error = cutStrings(body.error, 0);
      text = JSON.stringify(body);
    } catch {
      // Not JSON after all: passed on as it came.
    }
  }
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}

/** `value` with each string longer than the bound cut (an ellipsis marks the cut); the SDK's error objects are a few levels deep. */
function cutStrings(value: unknown, level: number): unknown {
  if (typeof value === 'string') return clipErrorText(value);
  if (typeof value !== 'object' || value === null || level >= 8) return value;
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, level + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item, level + 1)]));
}

/** One plain 2025-era request, answered by a fresh server on a single-exchange transport. */
async function serveOne(context: ContractContext, request: Request, message: Parameters<SingleExchangeTransport['exchange']>[0]): Promise<Response> {
  const server = createMcpServer(context, requestScope(message, request));
  const transport = new SingleExchangeTransport();
  await server.connect(transport);
  return transport.exchange(message, request);
}

/** One stateless 2025-era exchange with a fresh server and the SDK's transport, for an already parsed message. */
async function serveLegacy(context: ContractContext, request: Request, message: unknown): Promise<Response> {
  const server = createMcpServer(context, requestScope(message, request));
  const transport = newTransport(context.bodyLimit);
  await server.connect(transport);
  // No close() afterwards, on purpose. In JSON response mode the exchange is over once
  // handleRequest resolves: no stream, no keep-alive timer, no outgoing request is left, so the
  // pair is plain garbage. close() would only abort the protocol's per-request AbortController
  // and build a "Connection closed" error with a stack, for nothing.
  return transport.handleRequest(request, { parsedBody: message });
}
