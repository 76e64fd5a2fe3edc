/**
 * Lock waits are bounded on PostgreSQL: with one record locked from outside (a transaction held
 * open with SELECT … FOR UPDATE), PATCHes of that record answer 503 with `Retry-After` within
 * the lock timeout (never waiting for the lock holder), and reads of other records answer at
 * normal speed meanwhile: waiting writes never take the connections reads need.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CellgateError, ConfigurationError } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { transactionSlotsFor } from '../../src/storage/postgres/postgres-storage.ts';
import { conformanceModels, freshScope, invoiceModel } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from '../storage/drivers.ts';
import { startHostProcess, type HostProcess } from '../storage/fixtures/host-process.ts';
import { adminToken, call, createCustomer, customers, SECRET } from './support.ts';

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const skip = server.ok ? undefined : server.skip;

describe('postgresStorage time limits (options)', () => {
  it('refuses timeouts that are not whole milliseconds >= 0', () => {
    const url = 'postgres://app@127.0.0.1:5432/app';
    expect(() => postgresStorage({ connectionString: url, lockTimeoutMs: -1 })).toThrow(ConfigurationError);
    expect(() => postgresStorage({ connectionString: url, statementTimeoutMs: 1.5 })).toThrow(ConfigurationError);
    expect(() => postgresStorage({ connectionString: url, connectionTimeoutMs: Number.NaN })).toThrow(ConfigurationError);
  });

  it('keeps a quarter of the pool (at least one connection) for reads', () => {
    expect([1, 2, 4, 10, 20].map(transactionSlotsFor)).toEqual([1, 1, 3, 8, 15]);
  });
});

describe.skipIf(Boolean(skip))(`a record locked from outside (PostgreSQL)${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let host: HostProcess;
  let token = '';
  let holder: pg.Client;

  beforeAll(async () => {
    const url = server.ok ? server.db.url : '';
    host = await startHostProcess({ DATABASE_URL: url, CELLGATE_JWT_SECRET: SECRET });
    token = await adminToken();
    holder = new pg.Client({ connectionString: url });
    await holder.connect();
  }, 120_000);

  afterAll(async () => {
    await holder?.end();
    await host?.stop();
    if (server.ok) await server.db.stop();
  }, 60_000);

  it('answers 503 + Retry-After when no pooled connection frees up within the connection timeout', async () => {
    const driver = postgresStorage({ connectionString: server.ok ? server.db.url : '', max: 1, connectionTimeoutMs: 300 });
    await driver.migrate(conformanceModels);
    let release = () => undefined as void;
    const held = driver.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      const started = performance.now();
      const error = await driver.get(invoiceModel, freshScope(), '00000000-0000-4000-8000-000000000000').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CellgateError);
      expect((error as CellgateError).status).toBe(503);
      expect((error as CellgateError).headers?.['Retry-After']).toBe('1');
      expect(performance.now() - started).toBeLessThan(3000);
    } finally {
      release();
      await held;
      await driver.close();
    }
  });

  it('answers PATCHes of the locked record with 503 + Retry-After within the lock timeout, and reads of other records at normal speed', async () => {
    const locked = await createCustomer(host, token, 'Locked');
    const others = await Promise.all(Array.from({ length: 10 }, (_, index) => createCustomer(host, token, `Other ${index}`)));
    const timedRead = async (id: string) => {
      const started = performance.now();
      const answer = await call(host, token, 'GET', `${customers}/${id}`);
      return { status: answer.status, ms: performance.now() - started };
    };
    const baseline = await Promise.all(others.map(timedRead));

    await holder.query('BEGIN');
    await holder.query('SELECT * FROM crm_customer_v1 WHERE id = $1 FOR UPDATE', [locked]);
    try {
      const started = performance.now();
      const patches = Array.from({ length: 19 }, (_, index) =>
        call(host, token, 'PATCH', `${customers}/${locked}`, { expectedVersion: 1, name: `blocked ${index}` }).then((answer) => ({
          ...answer,
          ms: performance.now() - started,
        })),
      );
      // Let the PATCHes take their connections and start waiting on the lock first.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const reads = await Promise.all(Array.from({ length: 50 }, (_, index) => timedRead(others[index % others.length]!)));
      const written = await Promise.all(patches);

      expect(reads.every((read) => read.status === 200)).toBe(true);
      const slowest = Math.max(...reads.map((read) => read.ms));
      // The PATCHes wait 2 s each on the lock; reads must not wait behind them.
      expect(slowest, `reads took up to ${slowest.toFixed(0)} ms (unlocked: ${Math.max(...baseline.map((read) => read.ms)).toFixed(0)} ms)`).toBeLessThan(1000);
      for (const answer of written) {
        expect(answer.status, JSON.stringify(answer.json)).toBe(503);
        expect(answer.retryAfter).not.toBeNull();
      }
      // Without a lock timeout they would all wait for the holder (which never lets go here).
      expect(Math.max(...written.map((answer) => answer.ms))).toBeLessThan(9000);
    } finally {
      await holder.query('ROLLBACK');
    }
    const after = await call(host, token, 'PATCH', `${customers}/${locked}`, { expectedVersion: 1, name: 'after the lock' });
    expect(after.status).toBe(200);
  }, 60_000);
});
