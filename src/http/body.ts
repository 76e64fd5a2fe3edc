/**
 * Reading a JSON request body safely: content type checked, size limited while streaming (an
 * oversized body is refused without being buffered whole), empty and malformed bodies refused,
 * all as envelope errors.
 */
import { CellgateError } from '../errors.ts';
import { DEFAULT_BODY_LIMIT } from '../limits.ts';
import { parseClientJson } from './json.ts';

export { DEFAULT_BODY_LIMIT };

/**
 * The seam through which an adapter hands the core a request body without a web stream.
 * A request may carry a method under this key: called with the byte limit, it returns a promise of
 * the whole body (`null` once more than `limit` bytes arrived: the adapter stops reading and
 * discards the rest), or `undefined` when it cannot (the body was already handed out as a
 * stream), and the core then reads `request.body`. Afterwards the request counts as read, as after
 * `text()`.
 *
 * Why: a `ReadableStream` per request body, read chunk by chunk through promises, costs more than
 * the rest of a small governed PATCH's HTTP handling on Node 20. The Node adapters collect the
 * socket's chunks directly.
 */
export const READ_BODY: unique symbol = Symbol.for('cellgate.http.readBody');

/** A request that offers {@link READ_BODY}. */
export interface DirectBodyRequest {
  [READ_BODY](limit: number): Promise<Uint8Array | null> | undefined;
}

const utf8 = new TextDecoder();

/** True for `application/json` and any `application/*+json` media type, parameters ignored. */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  // The spelling nearly every client sends, recognised without splitting and lower-casing.
  if (value === 'application/json' || value === 'application/json; charset=utf-8') return true;
  const media = value.split(';', 1)[0]!.trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

/** The 413 for a body past `limit` bytes. */
function tooLarge(limit: number): CellgateError {
  return new CellgateError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limit} bytes.`, { details: { limit } });
}

/**
 * The 400 for a body that stopped arriving before its end: the client closed or reset the
 * connection, or broke the chunked encoding. That is the client's doing, not a failure of the
 * server, so it must not be answered and logged as a 500 (any client could fill the error log by
 * hanging up mid-body). The client has usually gone and never sees this answer.
 */
function unfinishedBody(cause: unknown): CellgateError {
  if (cause instanceof CellgateError) return cause;
  return new CellgateError('BAD_REQUEST', 'Request body did not arrive whole: the connection closed before its end.', { cause });
}

/**
 * Reads the body as text, refusing it with 413 `PAYLOAD_TOO_LARGE` as soon as more than `limit`
 * bytes arrive (or when `Content-Length` already says so), and with 400 `BAD_REQUEST` when the
 * body stops arriving before its end.
 */
export async function readTextBody(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  const direct = (request as Partial<DirectBodyRequest>)[READ_BODY]?.(limit);
  if (direct) {
    let bytes: Uint8Array | null;
    try {
      bytes = await direct;
    } catch (error) {
      throw unfinishedBody(error);
    }
    if (bytes === null) throw tooLarge(limit);
    return utf8.decode(bytes);
  }
  if (request.body === null) return '';

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch (error) {
      throw unfinishedBody(error);
    }
    const { done, value } = next;
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return utf8.decode(bytes);
}

/** Options of {@link readJsonBody}. */
export interface ReadJsonOptions {
  /** Maximum body size in bytes. @default 1048576 */
  limit?: number;
}

/**
 * Reads and parses a JSON body. 415 `UNSUPPORTED_MEDIA_TYPE` for a non-JSON content type, 413 for
 * an oversized body, 400 `BAD_REQUEST` for an empty or malformed one or one nested deeper than
 * `MAX_JSON_DEPTH`. Returns the parsed value of
 * any JSON type; shape checks are the caller's (with zod).
 */
export async function readJsonBody(request: Request, options: ReadJsonOptions = {}): Promise<unknown> {
  return parseClientJson(await readJsonText(request, options));
}

/**
 * The text of a JSON body, with every check of {@link readJsonBody} but the parse (415, 413, 400
 * for an empty body). For callers that parse it with `parseClientJson` themselves and want the
 * text's length too.
 */
export async function readJsonText(request: Request, options: ReadJsonOptions = {}): Promise<string> {
  const contentType = request.headers.get('content-type');
  if (!isJsonContentType(contentType)) {
    throw new CellgateError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be application/json${contentType ? `, received ${contentType.split(';', 1)[0]}` : ''}.`,
    );
  }
  const text = await readTextBody(request, options.limit ?? DEFAULT_BODY_LIMIT);
  if (text.trim() === '') throw new CellgateError('BAD_REQUEST', 'Request body is empty; a JSON document is required.');
  return text;
}
