import { describe, expect, it } from 'vitest';
import { CellgateError } from 'cellgate';
import { Invoice, cellCtx, customerInput, invoiceInput, setup, wsCtx } from './core-fixtures.ts';

async function listError(promise: Promise<unknown>): Promise<{ path: string }[]> {
  const error = (await promise.catch((e: unknown) => e)) as CellgateError;
  expect(error).toBeInstanceOf(CellgateError);
  expect(error.code).toBe('VALIDATION_ERROR');
  return error.details?.fields as { path: string }[];
}

async function invoices() {
  const env = await setup(Invoice);
  const rows = [
    { invoiceNumber: 'INV-001', customerName: 'Acme', amount: 50, dueDate: '2026-01-10', status: 'DRAFT' },
    { invoiceNumber: 'INV-002', customerName: 'Ärzte GmbH', amount: 150, dueDate: '2026-01-20', status: 'SENT' },
    { invoiceNumber: 'INV-003', customerName: 'Beta', amount: 250, dueDate: '2026-02-05', status: 'PAID' },
    { invoiceNumber: 'INV-004', customerName: 'acme labs', amount: 150, dueDate: '2026-03-01', status: 'PAID' },
  ];
  for (const row of rows) await env.service.create(cellCtx(), { ...invoiceInput, ...row });
  return env;
}

describe('lists (docs/decisions/B12.md)', () => {
  it('pages with total after filters, default sort from the data block', async () => {
    const { service } = await invoices();
    const page = await service.list(cellCtx(), { pageSize: 3 });
    expect(page.meta).toEqual({ total: 4, page: 1, pageSize: 3 });
    // Default sort: created_at desc (creates may share a millisecond), ties by id ascending.
    const all = (await service.list(cellCtx(), { pageSize: 10 })).data;
    const expected = [...all].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? 1 : -1));
    expect(all.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    expect(page.data.map((r) => r.id)).toEqual(expected.slice(0, 3).map((r) => r.id));
    expect((await service.list(cellCtx(), { page: 2, pageSize: 3 })).data.map((r) => r.id)).toEqual([expected[3]!.id]);
    expect((await service.list(cellCtx(), { pageSize: 1000 })).meta.pageSize).toBe(100);
  });

  it('filters with each operator and coerces query-string values', async () => {
    const { service } = await invoices();
    const numbers = async (filters: { field: string; operator: any; value: unknown }[], q?: string) =>
      (await service.list(cellCtx(), { filters, sortBy: 'dueDate', ...(q === undefined ? {} : { q }) })).data.map((r) => r.invoiceNumber);
    expect(await numbers([{ field: 'status', operator: 'equals', value: 'PAID' }])).toEqual(['INV-003', 'INV-004']);
    expect(await numbers([{ field: 'status', operator: 'in', value: 'PAID,SENT' }])).toEqual(['INV-002', 'INV-003', 'INV-004']);
    expect(await numbers([{ field: 'amount', operator: 'gt', value: '100' }])).toEqual(['INV-002', 'INV-003', 'INV-004']);
    expect(await numbers([{ field: 'amount', operator: 'lt', value: 150 }])).toEqual(['INV-001']);
    expect(await numbers([{ field: 'amount', operator: 'between', value: '100,200' }])).toEqual(['INV-002', 'INV-004']);
    expect(await numbers([{ field: 'dueDate', operator: 'between', value: '2026-01-15,2026-02-05' }])).toEqual(['INV-002', 'INV-003']);
    expect(await numbers([{ field: 'dueDate', operator: 'before', value: '2026-01-20T00:00:00Z' }])).toEqual(['INV-001']);
    expect(await numbers([{ field: 'dueDate', operator: 'after', value: '2026-02-05' }])).toEqual(['INV-004']);
    expect(await numbers([], 'ACME')).toEqual(['INV-001', 'INV-004']);
    expect(await numbers([], 'ärzte')).toEqual(['INV-002']);
  });

  it('sorts by allowed fields with ties broken by id', async () => {
    const { service } = await invoices();
    const asc = await service.list(cellCtx(), { sortBy: 'amount', sortDir: 'asc' });
    expect(asc.data.map((r) => r.amount)).toEqual([50, 150, 150, 250]);
    const tied = asc.data.filter((r) => r.amount === 150).map((r) => r.id);
    expect(tied).toEqual([...tied].sort());
    const desc = await service.list(cellCtx(), { sortBy: 'amount', sortDir: 'desc' });
    expect(desc.data.map((r) => r.amount)).toEqual([250, 150, 150, 50]);
  });

  it('refuses bad parameters naming each', async () => {
    const { service } = await invoices();
    expect(await listError(service.list(cellCtx(), { page: 0 }))).toEqual([{ path: 'page', message: expect.any(String) }]);
    expect((await listError(service.list(cellCtx(), { pageSize: 0 })))[0]!.path).toBe('pageSize');
    expect((await listError(service.list(cellCtx(), { sortBy: 'customerName' })))[0]!.path).toBe('sortBy');
    expect((await listError(service.list(cellCtx(), { sortBy: 'due_date' })))[0]!.path).toBe('sortBy');
    expect((await listError(service.list(cellCtx(), { filters: [{ field: 'customerName', operator: 'equals', value: 'x' }] })))[0]!.path).toBe('customerName');
    expect((await listError(service.list(cellCtx(), { filters: [{ field: 'status', operator: 'contains', value: 'x' }] })))[0]!.path).toBe('status[contains]');
    expect((await listError(service.list(cellCtx(), { filters: [{ field: 'amount', operator: 'gt', value: 'lots' }] })))[0]!.path).toBe('amount[gt]');
    expect((await listError(service.list(cellCtx(), { filters: [{ field: 'amount', operator: 'between', value: '1' }] })))[0]!.path).toBe('amount[between]');
    expect((await listError(service.list(cellCtx(), { filters: [{ field: 'customerId', operator: 'equals', value: 'nope' }] })))[0]!.path).toBe('customerId');
    expect((await listError(service.list(cellCtx(), { filters: [{ field: 'dueDate', operator: 'before', value: '2026-02-31' }] })))[0]!.path).toBe(
      'dueDate[before]',
    );
  });

  it('search on an entity without searching fields is refused', async () => {
    const { service } = await setup();
    await service.create(wsCtx(), customerInput);
    const { service: events } = await setup((await import('./core-fixtures.ts')).ActivityEvent);
    const error = await events.list({ actor: (await import('./core-fixtures.ts')).actor({ roles: ['viewer'] }) }, { q: 'x' }).catch((e: CellgateError) => e);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
