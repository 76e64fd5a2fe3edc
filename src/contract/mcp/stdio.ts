/**
 * The MCP server over stdio for local agents (`cellgate mcp`): the same tools and resources as the
 * HTTP endpoint, one long-lived server on the process's stdin/stdout. Node-only, so it is not
 * re-exported from the runtime-neutral root entry.
 */
import process from 'node:process';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ContractContext } from '../context.ts';
import { nonObjectArguments } from './arguments-guard.ts';
import { createMcpServer } from './server.ts';

/** Streams used by {@link serveStdio}; the process's own by default (tests may pass others). */
export interface StdioStreams {
  /** @default process.stdin */
  stdin?: NodeJS.ReadableStream & { pause(): unknown };
  /** @default process.stdout */
  stdout?: NodeJS.WritableStream;
}

/**
 * Serves MCP on stdio until stdin ends (the client went away), then closes the server.
 * Nothing but JSON-RPC may be written to stdout meanwhile; log to stderr.
 *
 * @example
 * await serveStdio(createContractContext({ projectFolder: nodeProjectFolder(process.cwd()) }));
 */
export async function serveStdio(context: ContractContext, streams: StdioStreams = {}): Promise<void> {
  const stdin = streams.stdin ?? process.stdin;
  const stdout = streams.stdout ?? process.stdout;
  const server = createMcpServer(context);
  const transport = new StdioServerTransport(stdin as typeof process.stdin, stdout as typeof process.stdout);
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await server.connect(transport);
  // A tools/call with non-object arguments gets -32602 here, as on the HTTP endpoint.
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    const refused = nonObjectArguments(message);
    if (refused) void transport.send(refused as JSONRPCMessage).catch(() => undefined);
    else deliver?.(message);
  };
  await ended;
  await server.close();
}
