/**
 * Storage conformance and PostgreSQL-only behaviour on a real server: a fresh database on
 * `DATABASE_URL`'s server (CI) or on a throwaway local cluster; skipped with the reason otherwise.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { CellgateError } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { runStorageConformance } from 'cellgate/testing';
import { auditFor, conformanceModels, freshScope, invoiceFields, invoiceModel, newRecord, seed } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip, expectDuplicateIsConflict } from './drivers.ts';

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const skip = server.ok ? undefined : server.skip;
if (skip) console.warn(`postgres storage tests skipped: ${skip}`);
const url = server.ok ? server.db.url : '';
afterAll(async () => {
  if (server.ok) await server.db.stop();
});

runStorageConformance({
  name: 'postgres',
  skip,
  create: () => postgresStorage({ connectionString: url }),
  rawAuditRows: async (_driver, tenantId) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query('SELECT * FROM cellgate_audit_log WHERE tenant_id = $1', [tenantId])).rows;
    } finally {
      await client.end();
    }
  },
  tamperAudit: async (_driver, tenantId, statement) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const sql =
        statement === 'update' ? `UPDATE cellgate_audit_log SET actor_id = 'x' WHERE tenant_id = $1` : 'DELETE FROM cellgate_audit_log WHERE tenant_id = $1';
      await client.query(sql, [tenantId]);
    } finally {
      await client.end();
    }
  },
});

describe.skipIf(Boolean(skip))(`postgres driver${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const withPool = async <T>(fn: (pool: pg.Pool) => Promise<T>) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      return await fn(pool);
    } finally {
      await pool.end();
    }
  };

  it('rejects a raw UPDATE, DELETE or TRUNCATE of audit rows (database trigger)', async () => {
    const driver = postgresStorage({ connectionString: url });
    await driver.migrate(conformanceModels);
    const record = newRecord(freshScope(), invoiceFields());
    await driver.transaction((session) => session.appendAudit(auditFor(record, { actorId: 'a' })));
    await withPool(async (pool) => {
      await expect(pool.query(`UPDATE cellgate_audit_log SET actor_id = 'x' WHERE tenant_id = $1`, [record.tenantId])).rejects.toThrow(/append-only/);
      await expect(pool.query(`DELETE FROM cellgate_audit_log WHERE tenant_id = $1`, [record.tenantId])).rejects.toThrow(/append-only/);
      await expect(pool.query('TRUNCATE cellgate_audit_log')).rejects.toThrow(/append-only/);
      const { rows } = await pool.query('SELECT actor_id FROM cellgate_audit_log WHERE tenant_id = $1', [record.tenantId]);
      expect(rows).toEqual([{ actor_id: 'a' }]);
    });
    await driver.close();
  });

  it('migrates safely from several processes at once (advisory lock)', async () => {
    const drivers = Array.from({ length: 4 }, () => postgresStorage({ connectionString: url }));
    const fresh = { ...invoiceModel, table: 'concurrent_migrate_v1', resourceType: 'conformance.Concurrent@v1' };
    await Promise.all(drivers.map((driver) => driver.migrate([fresh])));
    const scope = freshScope();
    const record = newRecord(scope, invoiceFields());
    await seed(drivers[0]!, fresh, [record]);
    expect(await drivers[3]!.get(fresh, scope, record.id)).toEqual(record);
    await Promise.all(drivers.map((driver) => driver.close()));
  });

  it('uses a pool it is given without ending it, and maps a duplicate id to CONFLICT without SQL in the message', async () => {
    await withPool(async (pool) => {
      const driver = postgresStorage({ pool });
      await expectDuplicateIsConflict(driver);
      await driver.close();
      const lazy = postgresStorage({ pool: async () => pool });
      expect(await lazy.get(invoiceModel, freshScope(), crypto.randomUUID())).toBeNull();
      await lazy.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    });
  });

  it('retries a transaction once when PostgreSQL picks it as a deadlock victim', async () => {
    const driver = postgresStorage({ connectionString: url });
    await driver.migrate(conformanceModels);
    const scope = freshScope();
    const [a, b] = [newRecord(scope, invoiceFields()), newRecord(scope, invoiceFields())];
    await seed(driver, invoiceModel, [a, b]);
    // Each transaction locks one row, waits until the other locked the other row, then asks for it.
    let locked = 0;
    const bothLocked = new Promise<void>((resolve) => {
      const check = setInterval(() => locked >= 2 && (clearInterval(check), resolve()), 5);
    });
    const attempts = [0, 0];
    const crosswise = (index: number, first: typeof a, second: typeof a) =>
      driver.transaction(async (session) => {
        attempts[index]! += 1;
        await session.update(invoiceModel, { ...first, updatedBy: `writer-${index}` }, 1);
        if (attempts[index] === 1) {
          locked += 1;
          await bothLocked;
        }
        return session.update(invoiceModel, { ...second, updatedBy: `writer-${index}` }, 1);
      });
    const results = await Promise.allSettled([crosswise(0, a, b), crosswise(1, b, a)]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(attempts.sort()).toEqual([1, 2]);
    await driver.close();
  });

  it('answers SERVICE_UNAVAILABLE when the server cannot be reached', async () => {
    const port = new URL(url).port;
    const driver = postgresStorage({ connectionString: `postgres://postgres@127.0.0.1:1/${port ? 'x' : 'y'}` });
    const error = await driver.get(invoiceModel, freshScope(), crypto.randomUUID()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CellgateError);
    expect((error as CellgateError).status).toBe(503);
    expect((error as CellgateError).message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    await driver.close();
  });

  it('folds Unicode case in contains/search even on a database whose ctype is "C"', async () => {
    const name = `cellgate_c_${crypto.randomUUID().slice(0, 8)}`;
    await withPool((pool) => pool.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`));
    const target = new URL(url);
    target.pathname = `/${name}`;
    const driver = postgresStorage({ connectionString: target.toString() });
    try {
      await driver.migrate(conformanceModels);
      const scope = freshScope();
      const record = newRecord(scope, invoiceFields({ customer_name: 'Ärzte GmbH' }));
      await seed(driver, invoiceModel, [record]);
      const found = await driver.list(invoiceModel, {
        scope,
        filters: [{ field: 'customer_name', operator: 'contains', value: 'ärzte' }],
        sort: { field: 'number', direction: 'asc' },
        offset: 0,
        limit: 10,
        includeDeleted: false,
      });
      expect(found.records.map((r) => r.id)).toEqual([record.id]);
    } finally {
      await driver.close();
      await withPool((pool) => pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });

  it('stores typed columns (uuid, bigint, double precision, boolean, timestamptz, jsonb)', async () => {
    await withPool(async (pool) => {
      const { rows } = await pool.query(
        `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'conformance_invoice_v1' AND column_name = ANY($1) ORDER BY column_name`,
        [['amount', 'quantity', 'paid', 'due_date', 'customer_id', 'details', 'lines', 'version']],
      );
      expect(Object.fromEntries(rows.map((row: { column_name: string; data_type: string }) => [row.column_name, row.data_type]))).toEqual({
        amount: 'double precision',
        quantity: 'bigint',
        paid: 'boolean',
        due_date: 'timestamp with time zone',
        customer_id: 'uuid',
        details: 'jsonb',
        lines: 'jsonb',
        version: 'integer',
      });
    });
  });
});
