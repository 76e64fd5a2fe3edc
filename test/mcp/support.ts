/**
 * Shared harness of the MCP tests: a real HTTP server on 127.0.0.1:0 serving the contract handler
 * (REST + MCP) through the Node adapter, the SDK client connected to it, and small fetch helpers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createContractHandler, type ContractHandlerOptions } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';

/** A running host: base URL plus a stop function. */
export interface TestHost {
  url: string;
  mcpUrl: string;
  stop(): Promise<void>;
}

/** Starts the contract handler on a free loopback port. */
export async function startHost(options: ContractHandlerOptions = {}): Promise<TestHost> {
  const server: Server = createServer(toNodeHandler(createContractHandler(options)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const path = options.mcp && typeof options.mcp === 'object' && options.mcp.path ? options.mcp.path : '/mcp';
  return {
    url,
    mcpUrl: `${url}${path}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An SDK client connected over Streamable HTTP. */
export async function connectClient(mcpUrl: string): Promise<Client> {
  const client = new Client({ name: 'cellgate-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return client;
}

/** Headers of a well-formed MCP POST. */
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;

/** A raw JSON-RPC POST; returns status, headers and the parsed body (or null when empty). */
export async function rpc(
  mcpUrl: string,
  body: unknown,
  headers: Record<string, string> = MCP_HEADERS,
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(mcpUrl, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** GET or POST a REST twin and return its JSON body. */
export async function rest(url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}
