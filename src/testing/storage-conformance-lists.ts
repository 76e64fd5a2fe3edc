/**
 * List cases of the storage conformance suite: every filter operator, search, sort in both
 * directions with the id tie-break, NULL placement, paging, totals, soft-deleted rows, Unicode,
 * large numbers and dates.
 */
import { beforeAll, expect } from 'vitest';
import { describe, it } from './storage-conformance-select.ts';
import type { ListQuery, RecordScope, StorageDriver, StoredRecord } from '../storage/types.ts';
import { freshScope, invoiceFields, invoiceModel, newRecord, nextVersion, seed } from './storage-conformance-fixtures.ts';
import { listBatchConformanceCases } from './storage-conformance-list-batches.ts';

type Current = () => StorageDriver;

/** Ten invoices designed so that each operator selects a distinct, known subset. */
function fixtures(scope: RecordScope): StoredRecord[] {
  const rows: Array<Record<string, unknown>> = [
    { number: 'INV-001', customer_name: 'Acme Corp', amount: 10, quantity: 1, paid: true, due_date: '2026-01-01T00:00:00.000Z', note: 'first' },
    { number: 'INV-002', customer_name: 'acme labs', amount: 20.5, quantity: -5, paid: false, due_date: '2026-01-15T00:00:00.000Z', note: null },
    {
      number: 'INV-003',
      customer_name: 'Ärzte GmbH',
      amount: 30,
      quantity: 9007199254740991,
      paid: true,
      due_date: '2026-02-01T00:00:00.000Z',
      note: '100% sure',
    },
    { number: 'INV-004', customer_name: 'ärzte verein', amount: 30, quantity: -9007199254740991, paid: false, due_date: null, note: 'under_score' },
    { number: 'INV-005', customer_name: 'Zeta', amount: 1e15, quantity: 0, paid: true, due_date: '2026-03-01T00:00:00.000Z', note: '東京' },
    { number: 'INV-006', customer_name: 'Beta', amount: -0.25, quantity: 3, paid: false, due_date: '2025-12-31T23:59:59.999Z', note: 'back\\slash' },
    { number: 'INV-007', customer_name: 'beta', amount: 30, quantity: 2, paid: true, due_date: '2026-02-01T00:00:00.000Z', note: 'emoji 🧾' },
    { number: 'INV-008', customer_name: 'Gamma', amount: 0.1, quantity: 4, paid: false, due_date: '2026-01-31T23:59:59.999Z', note: 'x' },
  ];
  // Fixed, sorted ids make the id tie-break observable.
  return rows.map((fields, index) => newRecord(scope, invoiceFields(fields), `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`));
}

/** List cases, registered inside the suite's describe. */
export function listConformanceCases(driver: Current): void {
  listBatchConformanceCases(driver);
  describe('lists', () => {
    const scope = freshScope();
    let records: StoredRecord[] = [];
    const numbersOf = (result: { records: StoredRecord[] }) => result.records.map((r) => r.fields.number);
    const query = (overrides: Partial<ListQuery> = {}): ListQuery => ({
      scope,
      filters: [],
      sort: { field: 'number', direction: 'asc' },
      offset: 0,
      limit: 100,
      includeDeleted: false,
      ...overrides,
    });
    const list = (overrides: Partial<ListQuery>) => driver().list(invoiceModel, query(overrides));
    const filtered = async (field: string, operator: ListQuery['filters'][number]['operator'], value: unknown) =>
      numbersOf(await list({ filters: [{ field, operator, value }] }));

    beforeAll(async () => {
      records = fixtures(scope);
      // A tenant-wide neighbour and a deleted record must stay out of every default list.
      const deleted = {
        ...nextVersion(newRecord(scope, invoiceFields({ number: 'INV-DEL', amount: 30 }))),
        deletedAt: '2026-05-01T00:00:00.000Z',
        deletedBy: 'x',
      };
      const neighbour = newRecord({ ...scope, workspaceId: crypto.randomUUID() }, invoiceFields({ number: 'INV-OTHER', amount: 30 }));
      await seed(driver(), invoiceModel, [...records, deleted, neighbour]);
    });

    it('equals, including booleans and false', async () => {
      expect(await filtered('amount', 'equals', 30)).toEqual(['INV-003', 'INV-004', 'INV-007']);
      expect(await filtered('paid', 'equals', false)).toEqual(['INV-002', 'INV-004', 'INV-006', 'INV-008']);
      expect(await filtered('customer_name', 'equals', 'Ärzte GmbH')).toEqual(['INV-003']);
    });

    it('in', async () => {
      expect(await filtered('number', 'in', ['INV-008', 'INV-001', 'INV-404'])).toEqual(['INV-001', 'INV-008']);
      expect(await filtered('quantity', 'in', [9007199254740991, 0])).toEqual(['INV-003', 'INV-005']);
    });

    it('contains and startsWith are case-insensitive (Unicode too) and take % _ \\ literally', async () => {
      expect(await filtered('customer_name', 'contains', 'ACME')).toEqual(['INV-001', 'INV-002']);
      expect(await filtered('customer_name', 'startsWith', 'ärz')).toEqual(['INV-003', 'INV-004']);
      expect(await filtered('customer_name', 'startsWith', 'ÄRZTE V')).toEqual(['INV-004']);
      expect(await filtered('note', 'contains', '%')).toEqual(['INV-003']);
      expect(await filtered('note', 'contains', '_')).toEqual(['INV-004']);
      expect(await filtered('note', 'contains', '\\')).toEqual(['INV-006']);
      expect(await filtered('note', 'contains', '京')).toEqual(['INV-005']);
      expect(await filtered('note', 'contains', '🧾')).toEqual(['INV-007']);
      expect(await filtered('customer_name', 'startsWith', 'cme')).toEqual([]);
    });

    it('gt, lt, before, after on numbers, large integers and dates', async () => {
      expect(await filtered('amount', 'gt', 30)).toEqual(['INV-005']);
      expect(await filtered('amount', 'lt', 0.1)).toEqual(['INV-006']);
      expect(await filtered('quantity', 'gt', 4)).toEqual(['INV-003']);
      expect(await filtered('quantity', 'lt', -5)).toEqual(['INV-004']);
      expect(await filtered('due_date', 'before', '2026-01-01T00:00:00.000Z')).toEqual(['INV-006']);
      expect(await filtered('due_date', 'after', '2026-02-01T00:00:00.000Z')).toEqual(['INV-005']);
    });

    it('between is inclusive at both ends', async () => {
      expect(await filtered('amount', 'between', [10, 30])).toEqual(['INV-001', 'INV-002', 'INV-003', 'INV-004', 'INV-007']);
      expect(await filtered('due_date', 'between', ['2026-01-15T00:00:00.000Z', '2026-02-01T00:00:00.000Z'])).toEqual([
        'INV-002',
        'INV-003',
        'INV-007',
        'INV-008',
      ]);
    });

    it('combines filters with AND', async () => {
      const result = await list({
        filters: [
          { field: 'amount', operator: 'equals', value: 30 },
          { field: 'paid', operator: 'equals', value: true },
        ],
      });
      expect(numbersOf(result)).toEqual(['INV-003', 'INV-007']);
      expect(result.total).toBe(2);
    });

    it('searches case-insensitively across several fields (OR)', async () => {
      expect(numbersOf(await list({ search: { fields: ['customer_name', 'note'], term: 'BETA' } }))).toEqual(['INV-006', 'INV-007']);
      expect(numbersOf(await list({ search: { fields: ['customer_name', 'note'], term: 'first' } }))).toEqual(['INV-001']);
      expect(numbersOf(await list({ search: { fields: ['customer_name'], term: 'zz' } }))).toEqual([]);
    });

    it('sorts ascending and descending with ties broken by id ascending', async () => {
      const asc = await list({ sort: { field: 'amount', direction: 'asc' } });
      expect(numbersOf(asc)).toEqual(['INV-006', 'INV-008', 'INV-001', 'INV-002', 'INV-003', 'INV-004', 'INV-007', 'INV-005']);
      const desc = await list({ sort: { field: 'amount', direction: 'desc' } });
      expect(numbersOf(desc)).toEqual(['INV-005', 'INV-003', 'INV-004', 'INV-007', 'INV-002', 'INV-001', 'INV-008', 'INV-006']);
      const big = await list({ sort: { field: 'quantity', direction: 'asc' } });
      expect(numbersOf(big)).toEqual(['INV-004', 'INV-002', 'INV-005', 'INV-001', 'INV-007', 'INV-006', 'INV-008', 'INV-003']);
    });

    it('sorts text by code point (upper case before lower case)', async () => {
      expect(numbersOf(await list({ sort: { field: 'customer_name', direction: 'asc' } }))).toEqual([
        'INV-001',
        'INV-006',
        'INV-008',
        'INV-005',
        'INV-002',
        'INV-007',
        'INV-003',
        'INV-004',
      ]);
    });

    it('puts NULLs first ascending and last descending', async () => {
      const asc = numbersOf(await list({ sort: { field: 'due_date', direction: 'asc' } }));
      expect(asc).toEqual(['INV-004', 'INV-006', 'INV-001', 'INV-002', 'INV-008', 'INV-003', 'INV-007', 'INV-005']);
      const desc = numbersOf(await list({ sort: { field: 'due_date', direction: 'desc' } }));
      expect(desc).toEqual(['INV-005', 'INV-003', 'INV-007', 'INV-008', 'INV-002', 'INV-001', 'INV-006', 'INV-004']);
    });

    it('sorts by created_at and updated_at', async () => {
      const desc = await list({ sort: { field: 'created_at', direction: 'desc' } });
      expect(desc.records.map((r) => r.id)).toEqual([...records].reverse().map((r) => r.id));
      const asc = await list({ sort: { field: 'updated_at', direction: 'asc' } });
      expect(asc.records.map((r) => r.id)).toEqual(records.map((r) => r.id));
    });

    it('pages with offset and limit; total counts every match', async () => {
      const first = await list({ limit: 3 });
      expect(numbersOf(first)).toEqual(['INV-001', 'INV-002', 'INV-003']);
      expect(first.total).toBe(8);
      const last = await list({ offset: 6, limit: 3 });
      expect(numbersOf(last)).toEqual(['INV-007', 'INV-008']);
      expect(last.total).toBe(8);
      const beyond = await list({ offset: 50, limit: 3 });
      expect(beyond).toEqual({ records: [], total: 8 });
      expect((await list({ limit: 2, filters: [{ field: 'amount', operator: 'equals', value: 30 }] })).total).toBe(3);
    });

    it('includes soft-deleted records only when asked', async () => {
      expect((await list({ filters: [{ field: 'amount', operator: 'equals', value: 30 }] })).total).toBe(3);
      const all = await list({ includeDeleted: true, filters: [{ field: 'amount', operator: 'equals', value: 30 }] });
      expect(numbersOf(all)).toEqual(['INV-003', 'INV-004', 'INV-007', 'INV-DEL']);
    });

    it('returns full records, equal to what was stored', async () => {
      const result = await list({ filters: [{ field: 'number', operator: 'equals', value: 'INV-003' }] });
      expect(result.records).toEqual([records[2]]);
    });
  });
}
