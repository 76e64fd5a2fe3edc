/**
 * The MCP server over stdio for local agents (`cellgate mcp`): the same tools and resources as the
 * HTTP endpoint, on the process's stdin/stdout. The SDK's `serveStdio` picks the revision from the
 * connection's first message (a 2025 `initialize`, or a 2026-07-28 request with its `_meta`
 * claim) and builds one server for the connection. Node-only, so it is not re-exported from the
 * runtime-neutral root entry.
 */
import process from 'node:process';
import { Transform, Writable, type Readable, type TransformCallback } from 'node:stream';
import { parseJSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio as serveSdkStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { MAX_STDIO_MESSAGE_BYTES } from '../../limits.ts';
import type { ContractContext } from '../context.ts';
import { refusal, type JsonRpcError } from './request-guard.ts';
import { createMcpServer } from './server.ts';

/** Streams used by {@link serveStdio}; the process's own by default (tests may pass others). */
export interface StdioStreams {
  /** @default process.stdin */
  stdin?: NodeJS.ReadableStream & { pause(): unknown };
  /** @default process.stdout */
  stdout?: NodeJS.WritableStream;
}

const NEWLINE = 0x0a;

/** A JSON-RPC error answer with `id` (`null` when the message has none that can be read). */
function lineError(id: unknown, code: number, message: string): JsonRpcError {
  return { jsonrpc: '2.0', id: (typeof id === 'string' || typeof id === 'number' ? id : null) as string, error: { code, message } };
}

/**
 * The answer to a stdin line the SDK may not have: not JSON, not a JSON-RPC message, or a message
 * {@link refusal} refuses (too deep, bad params); `undefined` for a message to hand on, `skip`
 * for a blank line.
 */
function lineRefusal(line: string): JsonRpcError | 'skip' | undefined {
  if (line.trim() === '') return 'skip';
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return lineError(null, -32700, 'Parse error: Invalid JSON');
  }
  try {
    parseJSONRPCMessage(value);
  } catch {
    const id = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { id?: unknown }).id : null;
    return lineError(id, -32600, 'Invalid Request: the line is not a valid JSON-RPC message');
  }
  return refusal(value);
}

/**
 * Judges each stdin line before the SDK's transport reads it, the one point where stdio input is
 * checked. The SDK skips a line that is not JSON and only reports one that is not a JSON-RPC
 * message, so a client waiting for an answer to either would wait forever: this answers them as
 * the HTTP endpoint does (-32700, or -32600 with the message's id when it has one), answers the
 * messages {@link refusal} refuses (-32602), and refuses a line over
 * {@link MAX_STDIO_MESSAGE_BYTES} (the SDK would close the whole connection past 10 MB), reading
 * on from the next line.
 */
class LineFilter extends Transform {
  #parts: Buffer[] = [];
  #size = 0;
  /** True while the rest of an oversized line is being skipped. */
  #skipping = false;

  constructor(private readonly answer: (message: JsonRpcError) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.#take(chunk.subarray(start, end));
      this.#endLine();
      start = end + 1;
    }
    this.#take(chunk.subarray(start));
    done();
  }

  #take(part: Buffer): void {
    if (this.#skipping || part.length === 0) return;
    this.#size += part.length;
    if (this.#size <= MAX_STDIO_MESSAGE_BYTES) return void this.#parts.push(part);
    this.#parts = [];
    this.#size = 0;
    this.#skipping = true;
    this.answer(lineError(null, -32600, `Invalid Request: a message may take at most ${MAX_STDIO_MESSAGE_BYTES} bytes`));
  }

  #endLine(): void {
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    const line = Buffer.concat(this.#parts, this.#size).toString('utf8').replace(/\r$/, '');
    this.#parts = [];
    this.#size = 0;
    const refused = lineRefusal(line);
    if (refused === undefined) this.push(`${line}\n`);
    else if (refused !== 'skip') this.answer(refused);
  }
}

/**
 * What the SDK's transport writes to: each answer goes on to stdout at once, and the SDK is never
 * asked to wait. The SDK waits for a full stdout with one 'drain' and one 'error' listener per
 * pending answer, so a client that read late piled up a pair per answer on stdout (Node's
 * `MaxListenersExceededWarning` past ten). Backpressure moves to the input instead: while stdout
 * is full, the line filter is paused, so stdin stops being read and no new request starts; one
 * 'drain' listener resumes it. What waits is bounded by the requests already read.
 */
class PacedOutput extends Writable {
  #waiting = false;

  constructor(
    private readonly target: NodeJS.WritableStream,
    private readonly input: () => Readable,
  ) {
    super();
    target.on('error', (error: Error) => this.destroy(error));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (!this.target.write(chunk) && !this.#waiting) {
      this.#waiting = true;
      this.input().pause();
      this.target.once('drain', () => {
        this.#waiting = false;
        this.input().resume();
      });
    }
    done();
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
  const output = new PacedOutput(stdout, () => lines);
  const lines = (stdin as Readable).pipe(new LineFilter((message) => output.write(`${JSON.stringify(message)}\n`)));
  const transport = new StdioServerTransport(lines, output);
  const handle = serveSdkStdio(() => createMcpServer(context), { transport });
  await ended;
  await handle.close();
}
