/**
 * List pages read in batches bounded by size (`ListQuery.maxLength`, docs/decisions/B25.md): the
 * batches hold the page's records in page order, none past the bound unless alone, and a write
 * between two batches neither repeats nor drops a record of the page. A driver that ignores
 * `maxLength` (no `rest`) passes the order and completeness checks with one batch, but not the
 * bound: large pages would then be held whole.
 */
import { beforeAll, expect } from 'vitest';
import type { ListQuery, ListResult, RecordScope, StorageDriver, StoredRecord } from '../storage/types.ts';
import { freshScope, invoiceFields, invoiceModel, newRecord, nextVersion, seed } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

/** Characters of each record's `note`: with the drivers' fixed allowances (well under 2,500 a record), 2 records fit in 25,000 and 3 never do. */
const NOTE_LENGTH = 10_000;
const TWO_RECORDS = 25_000;

/** Every batch of a result: the first (`records`), then those `rest` yields. */
async function batchesOf(result: ListResult): Promise<StoredRecord[][]> {
  const batches = [result.records];
  if (result.rest !== undefined) for await (const batch of result.rest) batches.push(batch);
  return batches;
}

/** List cases of size-bounded batches, registered inside the suite's describe. */
export function listBatchConformanceCases(driver: Current): void {
  describe('list batches', () => {
    let scope: RecordScope;
    let records: StoredRecord[] = [];
    const query = (overrides: Partial<ListQuery> = {}): ListQuery => ({
      scope,
      filters: [],
      sort: { field: 'number', direction: 'asc' },
      offset: 0,
      limit: 100,
      includeDeleted: false,
      ...overrides,
    });

    beforeAll(async () => {
      scope = freshScope();
      records = Array.from({ length: 7 }, (_, index) =>
        newRecord(scope, invoiceFields({ number: `B-${index + 1}`, note: String.fromCharCode(97 + index).repeat(NOTE_LENGTH), details: { index } })),
      );
      await seed(driver(), invoiceModel, records);
    });

    it('reads the page in batches within maxLength: the same records, in the same order, as one read', async () => {
      for (const overrides of [
        {},
        { offset: 2, limit: 4, sort: { field: 'number', direction: 'desc' } as const },
        { sort: { field: 'id', direction: 'asc' } as const },
      ]) {
        const whole = await driver().list(invoiceModel, query(overrides));
        const batched = await driver().list(invoiceModel, query({ ...overrides, maxLength: TWO_RECORDS }));
        expect(batched.total).toBe(whole.total);
        const batches = await batchesOf(batched);
        expect(batches.flat()).toEqual(whole.records);
        for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(2);
        expect(batches.length).toBe(Math.ceil(whole.records.length / 2));
      }
    });

    it('answers one batch, without rest, when the page fits', async () => {
      const result = await driver().list(invoiceModel, query({ limit: 2, maxLength: TWO_RECORDS }));
      expect(result.records.map((record) => record.fields.number)).toEqual(['B-1', 'B-2']);
      expect(result.rest).toBeUndefined();
    });

    it('holds at least one record per batch, even past maxLength', async () => {
      const batches = await batchesOf(await driver().list(invoiceModel, query({ limit: 3, maxLength: 1 })));
      expect(batches.map((batch) => batch.map((record) => record.fields.number))).toEqual([['B-1'], ['B-2'], ['B-3']]);
    });

    it('neither repeats nor drops a record of the page when a write comes between two batches', async () => {
      const result = await driver().list(invoiceModel, query({ limit: 4, maxLength: 1 }));
      expect(result.records.map((record) => record.fields.number)).toEqual(['B-1']);
      // A record that sorts first (it would shift an offset page) and an update of one still to come.
      await seed(driver(), invoiceModel, [newRecord(scope, invoiceFields({ number: 'B-0' }))]);
      const updated = nextVersion(records[2]!, { amount: 99 });
      await driver().transaction(async (session) => {
        expect(await session.update(invoiceModel, updated, records[2]!.version)).not.toBeNull();
      });
      const rest = result.rest === undefined ? [] : (await batchesOf({ ...result, records: [] })).flat();
      expect([...result.records, ...rest].map((record) => record.fields.number)).toEqual(['B-1', 'B-2', 'B-3', 'B-4']);
    });
  });
}
