/**
 * The MCP server over stdio for local agents (`cellgate mcp`): the same tools and resources as the
 * HTTP endpoint, on the process's stdin/stdout. The SDK's `serveStdio` picks the revision from the
 * connection's first message (a 2025 `initialize`, or a 2026-07-28 request with its `_meta`
 * claim) and builds one server for the connection. Node-only, so it is not re-exported from the
 * runtime-neutral root entry.
 */
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { serveStdio as serveSdkStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { ContractContext } from '../context.ts';
import { refusal } from './request-guard.ts';
import { createMcpServer } from './server.ts';

/** Streams used by {@link serveStdio}; the process's own by default (tests may pass others). */
export interface StdioStreams {
  /** @default process.stdin */
  stdin?: NodeJS.ReadableStream & { pause(): unknown };
  /** @default process.stdout */
  stdout?: NodeJS.WritableStream;
}

/**
 * A transport that answers the messages {@link refusal} refuses (too deep, bad params) itself and
 * hands every other one on: the SDK parses stdin lines on its own, so this is the first point
 * where a parsed message can be checked before dispatch.
 */
class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const refused = refusal(message);
      if (refused) void inner.send(refused).catch(() => undefined);
      else this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
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
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  const transport = new GuardedTransport(new StdioServerTransport(stdin as Readable, stdout as Writable));
  const handle = serveSdkStdio(() => createMcpServer(context), { transport });
  await ended;
  await handle.close();
}
