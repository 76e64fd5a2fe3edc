/**
 * `historyTenants`, the page of tenants an operator's purge walks, on every driver: ascending,
 * paged after the last id, each tenant once however many audit records it has.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryStorage, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { auditFor, conformanceModels, invoiceFields, newRecord } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-tenants-'));
const server = await startTestPostgres();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (server.ok) await server.db.stop();
});

async function check(driver: StorageDriver): Promise<void> {
  await driver.migrate(conformanceModels);
  const tenants = ['t-c', 't-a', 't-e', 't-b', 't-d'];
  await driver.transaction(async (session) => {
    for (const tenantId of tenants) {
      for (let index = 0; index < 3; index += 1) await session.appendAudit(auditFor(newRecord({ tenantId, workspaceId: null, cellId: null }, invoiceFields())));
    }
  });
  const pages: string[][] = [];
  for (let after: string | null = null; ; ) {
    const page: string[] = await driver.maintenance('retention', (session) => session.historyTenants(after, 2));
    pages.push(page);
    if (page.length < 2) break;
    after = page[page.length - 1]!;
  }
  expect(pages).toEqual([['t-a', 't-b'], ['t-c', 't-d'], ['t-e']]);
  await driver.close();
}

describe('historyTenants', () => {
  it('pages tenants on memory', () => check(memoryStorage()));
  it('pages tenants on SQLite', () => check(sqliteStorage({ filename: join(dir, 'tenants.db') })));
  it.skipIf(!server.ok)('pages tenants on PostgreSQL', async () => {
    // reason: without a PostgreSQL server (DATABASE_URL or local binaries) there is nothing to test against.
    if (server.ok) await check(postgresStorage({ connectionString: server.db.url }));
  });
});
