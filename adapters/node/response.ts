/**
 * `Response` → `ServerResponse`: every header written back (several `set-cookie` kept apart), a body
 * that is already complete written in one `end()` with its length, a streamed body written chunk by
 * chunk with backpressure (`drain`), nothing written for `HEAD`, and nothing thrown when the client
 * has gone away.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { lightResponseParts, type LightResponseParts } from 'cellgate/adapter-kit';
import { createSourceReader, type SourceReader } from './buffered-body.ts';

/** Options of {@link writeResponse}. */
export interface WriteResponseOptions {
  /** The request method; `HEAD` answers headers only. @default 'GET' */
  method?: string;
}

/** The response headers as Node expects them, `set-cookie` as an array of separate cookies. */
export function toNodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of headers) {
    if (name === 'set-cookie') continue;
    out[name] = value;
  }
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

type Chunk = ReadableStreamReadResult<Uint8Array>;

// Fast path: the string or bytes a `Response` was built from, read from undici's private state
// after a feature test (see buffered-body.ts for why, and for the fallback when the test fails).
const undiciSource: SourceReader = createSourceReader();

/**
 * The in-memory body a `Response` was built from, when it is still untouched; else `undefined`
 * (the caller then reads the body stream).
 */
export function bufferedBody(response: Response): string | Uint8Array | undefined {
  const light = lightResponseParts(response);
  if (light) return light.body;
  return undiciSource(response);
}

/** Resolves a read that is already settled; `undefined` when it would have to wait. */
async function settled(read: Promise<Chunk>): Promise<Chunk | undefined> {
  // Two microtask turns: enough for a body that is already in memory, not for real I/O.
  return Promise.race([read, Promise.resolve().then(() => Promise.resolve(undefined))]);
}

/**
 * Reads the body whole if it is already complete in memory (a JSON answer is one chunk), so the
 * common case is a single `end()` with a `content-length`; `undefined` otherwise, with the
 * chunks read so far and the pending read handed back for streaming.
 */
export async function readIfComplete(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ complete: boolean; chunks: Uint8Array[]; pending: Promise<Chunk> | undefined }> {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < 3; i++) {
    const read = reader.read();
    const result = await settled(read);
    if (!result) return { complete: false, chunks, pending: read };
    if (result.done) return { complete: true, chunks, pending: undefined };
    chunks.push(result.value);
  }
  return { complete: false, chunks, pending: undefined };
}

/**
 * Who waits for a response to drain, kept on the response so that its two listeners are shared
 * functions rather than closures made per wait (docs/architecture.md, "Performance model").
 */
const kDrained = Symbol('drained');

type DrainingResponse = ServerResponse & { [kDrained]?: ((ok: boolean) => void) | undefined };

function onDrain(this: DrainingResponse): void {
  settleDrain(this, true);
}

function onCloseWhileDraining(this: DrainingResponse): void {
  settleDrain(this, false);
}

function settleDrain(res: DrainingResponse, ok: boolean): void {
  const resolve = res[kDrained];
  res[kDrained] = undefined;
  res.off('drain', onDrain).off('close', onCloseWhileDraining);
  resolve?.(ok);
}

/** Resolves `true` once `res` drains, `false` if it closes first. */
function waitForDrain(res: DrainingResponse): Promise<boolean> {
  return new Promise((resolve) => {
    res[kDrained] = resolve;
    res.on('drain', onDrain).on('close', onCloseWhileDraining);
  });
}

function gone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded;
}

/**
 * Fast path for the core's light responses (see `src/http/light-response.ts`): status, headers and
 * the body in one `writeHead` + `end`, without ever building the real `Response` or its stream.
 * Headers go to `writeHead` as a flat `[name, value, …]` list (no object with dictionary keys per
 * answer): names from the response replace headers already set on `res`, each cookie stays its own line,
 * `content-length` is added unless present, `HEAD` has no body.
 */
function writeLight(res: ServerResponse, parts: LightResponseParts, method: string | undefined): void {
  if (gone(res)) return;
  const headers: Array<string | number | string[]> = [];
  let hasLength = false;
  let cookies: string[] | undefined;
  for (const [name, value] of parts.headers) {
    if (name === 'set-cookie') (cookies ??= []).push(value);
    else headers.push(name, value);
    if (name === 'content-length') hasLength = true;
  }
  // One entry holding every cookie: Node writes each as its own line, and a name repeated in the
  // list would replace the earlier ones when `res` already has headers of its own.
  if (cookies) headers.push('set-cookie', cookies);
  if (method === 'HEAD') {
    // GET's length, without the body (RFC 9110 §9.3.2).
    if (!hasLength) headers.push('content-length', typeof parts.body === 'string' ? Buffer.byteLength(parts.body) : parts.body.byteLength);
    res.writeHead(parts.status, headers);
    res.end();
    return;
  }
  // A string is encoded once here: measuring it and then letting the socket encode it would scan
  // it twice, which is slow for the two-byte strings any non-ASCII character makes.
  const body = typeof parts.body === 'string' ? Buffer.from(parts.body) : parts.body;
  if (!hasLength) headers.push('content-length', body.byteLength);
  res.writeHead(parts.status, headers);
  res.end(body);
}

/**
 * Writes a Fetch `Response` to a Node `ServerResponse`. Headers set earlier on `res` (by framework
 * middleware) are kept unless the response sets the same name. Never throws for a closed socket.
 *
 * @example
 * await writeResponse(res, await handler(toRequest(req)), { method: req.method });
 */
export async function writeResponse(res: ServerResponse, response: Response, options: WriteResponseOptions = {}): Promise<void> {
  const parts = lightResponseParts(response);
  if (parts) return writeLight(res, parts, options.method);
  const body = response.body;
  if (gone(res)) {
    await body?.cancel().catch(() => undefined);
    return;
  }
  const headers = toNodeHeaders(response.headers);
  if (!body || options.method === 'HEAD') {
    await body?.cancel().catch(() => undefined);
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const known = bufferedBody(response);
  if (known !== undefined) {
    if (headers['content-length'] === undefined) headers['content-length'] = typeof known === 'string' ? Buffer.byteLength(known) : known.byteLength;
    res.writeHead(response.status, headers);
    res.end(known);
    return;
  }
  const reader = body.getReader();
  try {
    const first = await readIfComplete(reader);
    if (first.complete) {
      const bytes = first.chunks.length === 1 ? first.chunks[0]! : Buffer.concat(first.chunks);
      if (headers['content-length'] === undefined) headers['content-length'] = bytes.byteLength;
      if (gone(res)) return;
      res.writeHead(response.status, headers);
      res.end(bytes);
      return;
    }
    res.writeHead(response.status, headers);
    // Send the headers now: a stream may take a while to produce its first chunk.
    if (first.chunks.length === 0) res.flushHeaders();
    for (const chunk of first.chunks) res.write(chunk);
    let pending = first.pending;
    for (;;) {
      const { done, value } = await (pending ?? reader.read());
      pending = undefined;
      if (done) break;
      if (gone(res)) break;
      if (!res.write(value) && !(await waitForDrain(res))) break;
    }
    if (!gone(res)) res.end();
  } catch (error) {
    // A stream that fails half-way cannot become an error answer any more: cut the connection so
    // the client sees a truncated response rather than a complete-looking one.
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    if (gone(res)) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
