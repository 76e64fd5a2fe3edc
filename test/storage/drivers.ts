/** Helpers of the storage runners. `STORAGE_DRIVERS=memory,sqlite,postgres,pglite` selects which drivers they exercise. */
import { expect } from 'vitest';
import { CellgateError, type StorageDriver } from 'cellgate';
import { conformanceModels, freshScope, invoiceFields, invoiceModel, newRecord, seed } from '../../src/testing/storage-conformance-fixtures.ts';

/** A skip reason when `driver` is filtered out, else undefined. */
export function driverSkip(driver: 'memory' | 'sqlite' | 'postgres' | 'pglite'): string | undefined {
  const selected = process.env.STORAGE_DRIVERS?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!selected || selected.length === 0 || selected.includes(driver)) return undefined;
  return `STORAGE_DRIVERS=${process.env.STORAGE_DRIVERS} does not include ${driver}`;
}

/** Inserting an existing id answers CONFLICT whose message names no SQL, table, constraint or database. */
export async function expectDuplicateIsConflict(driver: StorageDriver): Promise<void> {
  await driver.migrate(conformanceModels);
  const record = newRecord(freshScope(), invoiceFields());
  await seed(driver, invoiceModel, [record]);
  const error = await driver.transaction((session) => session.insert(invoiceModel, record)).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CellgateError);
  expect((error as CellgateError).code).toBe('CONFLICT');
  expect((error as CellgateError).message).not.toMatch(/conformance_invoice|insert|constraint|pkey|duplicate key|sqlite|postgres/i);
}
