/**
 * The fast path of the 2025-era endpoint: one plain JSON-RPC request (a `tools/call`, a
 * `resources/read`, a listing) answered through a minimal SDK `Transport` that hands the request
 * to the server and writes its single answer as a light response.
 *
 * Why: the SDK's Streamable HTTP transport builds an undici `Response.json`, stream mappings and
 * per-request bookkeeping around every answer; for one request and one JSON answer that is about
 * a third of what a small `tools/call` costs. Everything that needs the transport's HTTP rules
 * (batches, notifications, `initialize`, anything malformed or with an unusual protocol-version
 * header) still goes through the SDK transport, so this path never decides protocol questions.
 */
import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import { lightResponse } from '../../http/light-response.ts';

/** Headers of a JSON-RPC answer (one shared list, as `lightResponse` wants). */
export const JSON_RPC_HEADERS: ReadonlyArray<readonly [string, string]> = [['content-type', 'application/json']];

/** A parsed body this path may answer: one request with an id, a method and object params. */
export function isPlainRequest(message: unknown): message is JSONRPCMessage & { id: string | number; method: string } {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const { jsonrpc, id, method, params } = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  return (
    jsonrpc === '2.0' &&
    (typeof id === 'string' || typeof id === 'number') &&
    typeof method === 'string' &&
    method !== 'initialize' &&
    (params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params)))
  );
}

/** A transport that lives for one request: it delivers the request and resolves with the answer. */
export class SingleExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #answer: Promise<JSONRPCMessage>;
  #resolve!: (message: JSONRPCMessage) => void;

  constructor() {
    this.#answer = new Promise((resolve) => (this.#resolve = resolve));
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // Only the answer to the one request counts; a server on this transport sends nothing else
    // (no tool here notifies or asks the client anything before answering).
    if ('result' in message || 'error' in message) this.#resolve(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** Delivers `message` and resolves with its answer as a 200 JSON response. */
  async exchange(message: JSONRPCMessage, request: Request): Promise<Response> {
    this.onmessage?.(message, { request } as MessageExtraInfo);
    const answer = await this.#answer;
    return lightResponse(JSON.stringify(answer), 200, JSON_RPC_HEADERS);
  }
}
