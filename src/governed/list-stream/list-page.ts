/**
 * A list page whose records may arrive in batches (docs/decisions/B25.md): what the list operation
 * returns when its storage read the page in size-bounded batches. The first batch is in `data`;
 * `rest` yields the others, each record passed through the same per-record view as the first, so
 * field access and redaction apply to every record of the page whichever batch it came in.
 */
import type { ListResult, StoredRecord } from '../../storage/types.ts';
import type { ListView } from '../types.ts';

/** A {@link ListView} whose later records, when there are some, are still to be read from `rest`. */
export type ListPageView = ListView & {
  /** The page's records after `data`, batch by batch, in page order; absent when `data` is the whole page. */
  rest?: AsyncIterable<ListView['data']>;
};

/**
 * The view of a page read from storage: `item` makes each record's view (the list operation's one
 * per-record path), applied now to the first batch and to each later batch as it is read.
 */
export function listPageView(result: ListResult, meta: ListView['meta'], item: (record: StoredRecord) => ListView['data'][number]): ListPageView {
  const data = result.records.map(item);
  return result.rest === undefined ? { data, meta } : { data, meta, rest: viewedBatches(result.rest, item) };
}

async function* viewedBatches(
  batches: AsyncIterable<StoredRecord[]>,
  item: (record: StoredRecord) => ListView['data'][number],
): AsyncGenerator<ListView['data']> {
  for await (const batch of batches) yield batch.map(item);
}
