/** A memory list page cut into batches bounded by size, as the SQL drivers read them (docs/decisions/B25.md). */
import type { StoredRecord } from '../types.ts';

/** Characters counted per record for its base fields, and per field of a bounded kind (as the SQL drivers count). */
const RECORD_ALLOWANCE = 1024;
const BOUNDED_FIELD_ALLOWANCE = 32;

/** A record's size as the SQL drivers measure it: its text and JSON fields' text plus fixed allowances. */
function recordSize(record: StoredRecord): number {
  let size = RECORD_ALLOWANCE;
  for (const value of Object.values(record.fields)) {
    if (typeof value === 'string') size += value.length;
    else if (typeof value === 'object' && value !== null) size += JSON.stringify(value).length;
    else size += BOUNDED_FIELD_ALLOWANCE;
  }
  return size;
}

/**
 * A page cut into batches of at most `maxLength` characters (at least one record each): the first
 * batch, and the others (copied only when pulled) when there are more (docs/decisions/B25.md).
 */
export function pageInBatches(
  page: readonly StoredRecord[],
  maxLength: number,
  copy: (record: StoredRecord) => StoredRecord,
): { records: StoredRecord[]; rest?: AsyncIterable<StoredRecord[]> } {
  const batches: StoredRecord[][] = [];
  let length = Number.POSITIVE_INFINITY;
  for (const record of page) {
    const size = recordSize(record);
    if (length + size > maxLength || batches.length === 0) {
      batches.push([]);
      length = 0;
    }
    batches[batches.length - 1]!.push(record);
    length += size;
  }
  const [first = [], ...others] = batches;
  if (others.length === 0) return { records: first.map(copy) };
  return { records: first.map(copy), rest: copiedBatches(others, copy) };
}

async function* copiedBatches(batches: readonly StoredRecord[][], copy: (record: StoredRecord) => StoredRecord): AsyncGenerator<StoredRecord[]> {
  for (const batch of batches) yield batch.map(copy);
}
