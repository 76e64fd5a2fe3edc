/**
 * The HTTP answer of a list page read in batches (docs/decisions/B25.md): the same JSON text as
 * `JSON.stringify({ data, meta })`, written as a stream whose chunks are the page's batches, read
 * from storage only as the client takes them. The status and headers are those of the one-piece
 * answer, without `Content-Length` (the length is known only at the end). A failure before the
 * first byte is an error answer as always; after it, the stream errors and the adapter or runtime
 * cuts the connection, so the client never takes half a page for a whole one.
 */
import { jsonResponse, JSON_CONTENT_TYPE } from '../../http/responses.ts';
import { SECURITY_HEADERS } from '../../http/light-response.ts';
import type { ListPageView } from './list-page.ts';

const utf8 = new TextEncoder();

/**
 * The chunks of `JSON.stringify({ data, ...others })` with `data` the page's batches in order: one
 * chunk per record, so besides the batch being served the process holds one record's text.
 */
async function* pageText(view: ListPageView): AsyncGenerator<string> {
  const { data, rest, ...others } = view;
  let separator = '{"data":[';
  for (const item of data) {
    yield separator + JSON.stringify(item);
    separator = ',';
  }
  if (rest !== undefined) {
    for await (const batch of rest) {
      for (const item of batch) {
        yield separator + JSON.stringify(item);
        separator = ',';
      }
    }
  }
  // `others` holds `meta` (and whatever follows `data` in the view), in the view's key order.
  const tail = JSON.stringify(others);
  const close = tail === '{}' ? ']}' : `],${tail.slice(1)}`;
  yield separator === ',' ? close : `${separator}${close}`;
}

/**
 * The answer of a list page: the usual one-piece JSON answer when the page was read in one go,
 * a streamed one with the same bytes otherwise. `onFailure` hears of a failure after the first
 * byte (reading a later batch), which can no longer become an error answer.
 */
export function listResponse(view: ListPageView, headers?: Record<string, string>, onFailure?: (error: unknown) => void): Response {
  if (view.rest === undefined) return jsonResponse(view, 200, headers);
  const chunks = pageText(view);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: IteratorResult<string>;
        try {
          next = await chunks.next();
        } catch (error) {
          // The client sees only a cut connection; the host's logs get the cause.
          onFailure?.(error);
          throw error;
        }
        if (next.done) controller.close();
        else controller.enqueue(utf8.encode(next.value));
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    // Nothing is read ahead of the client: the next batch is read when the last one was taken.
    { highWaterMark: 0 },
  );
  const head = new Headers(headers);
  head.set('content-type', JSON_CONTENT_TYPE);
  for (const [name, value] of SECURITY_HEADERS) head.set(name, value);
  return new Response(body, { status: 200, headers: head });
}
