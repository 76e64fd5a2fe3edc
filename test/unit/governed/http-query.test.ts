/** Collection query parsing (docs/decisions/B12.md) against an entity's data block. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineEntity, type EntityDocumentInput, CellgateError } from 'cellgate';
import { createListQueryParser } from '../../../src/governed/list-query.ts';

const invoice = defineEntity(
  JSON.parse(readFileSync(new URL('../../../examples/entities/invoice.entity.json', import.meta.url), 'utf8')) as EntityDocumentInput,
);
const parse = createListQueryParser(invoice);
const q = (query: string) => parse(new URLSearchParams(query));

function refusal(query: string): CellgateError {
  try {
    q(query);
  } catch (error) {
    expect(error).toBeInstanceOf(CellgateError);
    return error as CellgateError;
  }
  throw new Error(`expected ${query} to be refused`);
}

describe('createListQueryParser', () => {
  it('defaults page 1 and pageSize 20, clamps pageSize to 100', () => {
    expect(q('')).toEqual({ page: 1, pageSize: 20, filters: [], includeDeleted: false });
    expect(q('page=3&pageSize=1000').pageSize).toBe(100);
  });

  it('coerces filter values to the field type and keeps camelCase names', () => {
    expect(q('amount[gt]=100.5&status[in]=PAID,SENT&dueDate[between]=2026-01-01,2026-02-01&customerId=0C4E7D21-5B8A-4F6E-9D3C-1A2B3C4D5E6F').filters).toEqual([
      { field: 'amount', operator: 'gt', value: 100.5 },
      { field: 'status', operator: 'in', value: ['PAID', 'SENT'] },
      { field: 'dueDate', operator: 'between', value: ['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'] },
      { field: 'customerId', operator: 'equals', value: '0C4E7D21-5B8A-4F6E-9D3C-1A2B3C4D5E6F' },
    ]);
  });

  it('passes sortBy, sortDir, q and includeDeleted through', () => {
    expect(q('sortBy=dueDate&sortDir=desc&q=acme&includeDeleted=true')).toMatchObject({ sortBy: 'dueDate', sortDir: 'desc', q: 'acme', includeDeleted: true });
  });

  it.each([
    ['pageSize=0', 'pageSize'],
    ['page=-1', 'page'],
    ['sortBy=customer_name', 'sortBy'],
    ['sortDir=DESC', 'sortDir'],
    ['status[contains]=PA', 'status[contains]'],
    ['amount[gt]=NaN', 'amount[gt]'],
    ['dueDate[after]=tomorrow', 'dueDate[after]'],
    ['status=paid', 'status'],
    ['status[in]=PAID,', 'status[in]'],
    ['invoice_number=1', 'invoice_number'],
    ['page=1&page=2', 'page'],
    ['paymentToken=tok', 'paymentToken'],
  ])('refuses %s naming %s', (query, name) => {
    const error = refusal(query);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain(name);
    expect((error.details?.fields as Array<{ path: string }>).map((f) => f.path)).toContain(name);
  });

  it('refuses q on an entity without searching fields', () => {
    const plain = defineEntity({ ...invoice, data: { filtering: { allowedFields: ['status'], operators: {} } } } as EntityDocumentInput);
    expect(() => createListQueryParser(plain)(new URLSearchParams('q=x'))).toThrow(/q/);
  });
});
