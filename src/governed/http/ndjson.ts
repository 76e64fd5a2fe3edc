/**
 * NDJSON answers (`application/x-ndjson`, one JSON value per line): choosing them from `Accept`,
 * and streaming an async iterable as one, pulled as the client reads (backpressure), so memory
 * stays at one chunk whatever the length. Cancelling the body (the client went away) stops the
 * iteration, and so the storage reads behind it.
 */
import { MAX_ACCEPT_HEADER_LENGTH, NDJSON_CHUNK_BYTES } from '../../limits.ts';

/** The media type of an NDJSON answer. */
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';

/** The quality an `Accept` header gives each media type it lists (only the first {@link MAX_ACCEPT_HEADER_LENGTH} characters are read). */
function qualities(accept: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const range of accept.slice(0, MAX_ACCEPT_HEADER_LENGTH).split(',')) {
    const [type = '', ...params] = range.split(';');
    const q = params.map((param) => param.trim().toLowerCase()).find((param) => param.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    found.set(type.trim().toLowerCase(), Number.isFinite(value) ? value : 0);
  }
  return found;
}

/** Whether the request asks for NDJSON: `Accept` lists `application/x-ndjson`, ranked no lower than `application/json`. */
export function wantsNdjson(request: Request): boolean {
  const accept = request.headers.get('accept');
  if (accept === null || !accept.toLowerCase().includes(NDJSON_MEDIA_TYPE)) return false;
  const ranked = qualities(accept);
  const ndjson = ranked.get(NDJSON_MEDIA_TYPE) ?? 0;
  return ndjson > 0 && ndjson >= (ranked.get('application/json') ?? 0);
}

/**
 * A 200 NDJSON answer streaming `values`. The first value is read before answering, so a failure
 * there (storage down, a refused query) still becomes an error answer; a failure later can only
 * cut the stream short (the status is sent), which the client sees as an incomplete body.
 */
export async function ndjsonResponse(values: AsyncIterable<unknown>): Promise<Response> {
  const iterator = values[Symbol.asyncIterator]();
  let next: IteratorResult<unknown> | undefined = await iterator.next();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let text = '';
        // One chunk gathers lines up to a size, so a big export is not a write per record.
        while (text.length < NDJSON_CHUNK_BYTES) {
          const current = next ?? (await iterator.next());
          next = undefined;
          if (current.done) {
            if (text !== '') controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          text += `${JSON.stringify(current.value)}\n`;
        }
        controller.enqueue(encoder.encode(text));
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, { status: 200, headers: { 'content-type': NDJSON_MEDIA_TYPE, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
}
