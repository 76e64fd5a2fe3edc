/**
 * The SQL drivers never bring more than one batch of a list page into the process
 * (docs/decisions/B25.md): every result the database hands over while a page is read with
 * `maxLength` holds at most that many characters of record text, counted on the client objects
 * themselves (better-sqlite3's statements, pg's clients), not on what the driver returns.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { conformanceModels, freshScope, invoiceFields, invoiceModel, newRecord, seed } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';

const pgSkip = driverSkip('postgres');
const postgres = pgSkip ? { ok: false as const, skip: pgSkip } : await startTestPostgres();
afterAll(async () => {
  if (postgres.ok) await postgres.db.stop();
});

/** Characters of text in the rows of one result. */
function textOf(rows: readonly Record<string, unknown>[]): number {
  let length = 0;
  for (const row of rows) for (const value of Object.values(row)) if (typeof value === 'string') length += value.length;
  return length;
}

/** A better-sqlite3 database whose statements report the text of every result they return. */
function countedSqlite(results: number[]): Database.Database {
  const database = new Database(':memory:');
  const prepare = database.prepare.bind(database);
  database.prepare = ((source: string) => {
    const statement = prepare(source);
    const all = statement.all.bind(statement);
    statement.all = ((...parameters: unknown[]) => {
      const rows = all(...parameters) as Record<string, unknown>[];
      results.push(textOf(rows));
      return rows;
    }) as typeof statement.all;
    return statement;
  }) as typeof database.prepare;
  return database;
}

/** A pg pool whose clients report the text of every result they return. */
function countedPool(url: string, results: number[]): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const answer = query(...args);
      if (answer instanceof Promise)
        return answer.then((result: { rows?: Record<string, unknown>[] }) => {
          results.push(textOf(result.rows ?? []));
          return result;
        });
      return answer;
    };
  });
  return pool;
}

const NOTE_LENGTH = 100_000;
const MAX_LENGTH = 250_000;

const drivers: Array<{ name: string; skip: string | undefined; create: (results: number[]) => { storage: StorageDriver; close: () => Promise<void> } }> = [
  {
    name: 'sqlite',
    skip: driverSkip('sqlite'),
    create: (results) => {
      const database = countedSqlite(results);
      const storage = sqliteStorage({ database });
      return {
        storage,
        close: async () => {
          await storage.close();
          database.close();
        },
      };
    },
  },
  {
    name: 'postgres',
    skip: postgres.ok ? undefined : postgres.skip,
    create: (results) => {
      const pool = countedPool(postgres.ok ? postgres.db.url : '', results);
      const storage = postgresStorage({ pool });
      return {
        storage,
        close: async () => {
          await storage.close();
          await pool.end();
        },
      };
    },
  },
];

for (const driver of drivers) {
  describe.skipIf(Boolean(driver.skip))(`list pages read in batches on ${driver.name}${driver.skip ? ` (skipped: ${driver.skip})` : ''}`, () => {
    it('hands over at most maxLength characters of records per query, where one read hands over the whole page', async () => {
      const results: number[] = [];
      const { storage, close } = driver.create(results);
      try {
        await storage.migrate(conformanceModels);
        const scope = freshScope();
        const records = Array.from({ length: 10 }, (_, index) => newRecord(scope, invoiceFields({ number: `N-${index}`, note: 'x'.repeat(NOTE_LENGTH) })));
        await seed(storage, invoiceModel, records);
        const query = { scope, filters: [], sort: { field: 'number', direction: 'asc' as const }, offset: 0, limit: 100, includeDeleted: false };

        results.length = 0;
        const whole = await storage.list(invoiceModel, query);
        expect(whole.records).toHaveLength(10);
        // The counter sees what a one-piece read costs: the whole page in one result.
        expect(Math.max(...results)).toBeGreaterThanOrEqual(10 * NOTE_LENGTH);

        results.length = 0;
        const batched = await storage.list(invoiceModel, { ...query, maxLength: MAX_LENGTH });
        let served = batched.records.length;
        for await (const batch of batched.rest ?? []) served += batch.length;
        expect(served).toBe(10);
        // Five queries of records (two per batch) beside the count, none above the bound.
        expect(results.filter((text) => text >= NOTE_LENGTH)).toHaveLength(5);
        for (const text of results) expect(text).toBeLessThanOrEqual(MAX_LENGTH);
      } finally {
        await close();
      }
    }, 60_000);
  });
}
