/**
 * Storage conformance and PGlite-only behaviour: PostgreSQL compiled to WASM in this process, on a
 * real data folder in a temp directory (so the durability suite runs) and in memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CellgateError, ConfigurationError } from 'cellgate';
import { pgliteStorage } from 'cellgate/storage/pglite';
import { runStorageConformance } from 'cellgate/testing';
import {
  auditFor,
  conformanceModels,
  freshScope,
  invoiceFields,
  invoiceModel,
  newRecord,
  nextVersion,
  seed,
} from '../../src/testing/storage-conformance-fixtures.ts';
import { driverSkip, expectDuplicateIsConflict } from './drivers.ts';

const skip = driverSkip('pglite');
const dir = mkdtempSync(join(tmpdir(), 'cellgate-pglite-'));
// One PGlite per folder at a time: the conformance drivers share this instance, as an app's
// tests would, and the suite's durability case reopens a driver on it.
let shared: PGlite;
beforeAll(async () => {
  if (!skip) shared = await PGlite.create(join(dir, 'conformance'));
});
afterAll(async () => {
  await shared?.close();
  rmSync(dir, { recursive: true, force: true });
});

runStorageConformance({
  name: 'pglite',
  skip,
  create: () => pgliteStorage({ pglite: shared }),
  disable: {
    'over 1,000 random histories: versions, changes between sampled pairs and as-of reads agree with what was written':
      'PGlite runs one statement at a time in WebAssembly, so 1,000 histories take minutes; the same SQL runs the property test on PostgreSQL, and the other time-travel cases run here',
  },
  rawAuditRows: async (_driver, tenantId) => (await shared.query('SELECT * FROM cellgate_audit_log WHERE tenant_id = $1', [tenantId])).rows,
  tamperAudit: (_driver, tenantId, statement) =>
    shared.query(
      statement === 'update' ? `UPDATE cellgate_audit_log SET actor_id = 'x' WHERE tenant_id = $1` : 'DELETE FROM cellgate_audit_log WHERE tenant_id = $1',
      [tenantId],
    ),
});

describe.skipIf(Boolean(skip))(`pglite driver${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('keeps what it wrote in its data folder (created when missing) across a close and a reopen', async () => {
    const folder = join(dir, 'restart', 'nested');
    const writer = pgliteStorage({ dataDir: folder });
    expect(writer.capabilities).toEqual({ durable: true, multiProcess: false, appendOnlyAuditEnforced: true });
    const scope = freshScope();
    const record = newRecord(scope, invoiceFields());
    await writer.migrate(conformanceModels);
    await seed(writer, invoiceModel, [record]);
    await writer.close();
    const reader = pgliteStorage({ dataDir: folder });
    try {
      expect(await reader.get(invoiceModel, scope, record.id)).toEqual(record);
      // Still writable after the reopen (PGlite recovered the folder, not just read it).
      await reader.transaction((session) => session.appendAudit(auditFor(record, { actorId: 'a' })));
      expect((await reader.listAudit({ tenantId: scope.tenantId, resourceId: record.id, limit: 10 })).records).toHaveLength(1);
    } finally {
      await reader.close();
    }
  });

  it('refuses a second driver on a data folder another driver of the process holds, until that one closes', async () => {
    const folder = join(dir, 'held');
    const first = pgliteStorage({ dataDir: folder });
    await first.migrate(conformanceModels);
    const second = pgliteStorage({ dataDir: `${folder}/.` });
    const error = await second.migrate(conformanceModels).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).path).toBe('options.dataDir');
    expect((error as Error).message).toMatch(/in use by another pgliteStorage\(\)/);
    await second.close();
    await first.close();
    const third = pgliteStorage({ dataDir: folder });
    expect(await third.get(invoiceModel, freshScope(), crypto.randomUUID())).toBeNull();
    await third.close();
  });

  it('uses an instance it is given without closing it; in memory it says it is not durable', async () => {
    const db = await PGlite.create('memory://');
    try {
      const driver = pgliteStorage({ pglite: db });
      expect(driver.capabilities.durable).toBe(false);
      await expectDuplicateIsConflict(driver);
      await driver.close();
      expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      const lazy = pgliteStorage({ pglite: async () => db });
      expect(await lazy.get(invoiceModel, freshScope(), crypto.randomUUID())).toBeNull();
      await lazy.close();
    } finally {
      await db.close();
    }
  });

  it("holds the instance for a whole transaction: the application's own statement waits and survives a rollback", async () => {
    const driver = pgliteStorage({ pglite: shared });
    await driver.migrate(conformanceModels);
    await shared.query('CREATE TABLE IF NOT EXISTS app_notes (note text)');
    const scope = freshScope();
    const record = newRecord(scope, invoiceFields());
    let appWrite: Promise<unknown> | undefined;
    const failed = driver
      .transaction(async (session) => {
        await session.insert(invoiceModel, record);
        // Issued while the transaction is open: on a shared connection without the hold it would
        // run inside the transaction and be rolled back with it.
        appWrite = shared.query('INSERT INTO app_notes VALUES ($1)', [record.id]);
        throw new Error('roll back');
      })
      .catch((error: unknown) => error);
    expect(await failed).toEqual(new Error('roll back'));
    await appWrite;
    expect((await shared.query('SELECT note FROM app_notes WHERE note = $1', [record.id])).rows).toEqual([{ note: record.id }]);
    expect(await driver.get(invoiceModel, scope, record.id)).toBeNull();
    await driver.close();
  });

  it('runs concurrent transactions one at a time: exactly one of many writers with the same expected version wins', async () => {
    const driver = pgliteStorage({ pglite: shared });
    await driver.migrate(conformanceModels);
    const scope = freshScope();
    const v1 = newRecord(scope, invoiceFields());
    await seed(driver, invoiceModel, [v1]);
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, index) => driver.transaction((session) => session.update(invoiceModel, nextVersion(v1, { amount: index }), 1))),
    );
    expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
    await driver.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when a transaction waits past transactionWaitMs', async () => {
    const driver = pgliteStorage({ pglite: shared, transactionWaitMs: 20 });
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const first = driver.transaction(async () => {
      entered();
      await holding;
    });
    await inside;
    const error = await driver.transaction(async () => undefined).catch((caught: unknown) => caught);
    release();
    await first;
    expect(error).toBeInstanceOf(CellgateError);
    expect((error as CellgateError).code).toBe('SERVICE_UNAVAILABLE');
    expect((error as CellgateError).headers).toMatchObject({ 'Retry-After': '1' });
    await driver.close();
  });

  it('refuses bad options at construction with the path of the option', () => {
    expect(() => pgliteStorage({ dataDir: ' ' })).toThrow(ConfigurationError);
    expect(() => pgliteStorage({ transactionWaitMs: 0 })).toThrow(/options\.transactionWaitMs/);
    expect(() => pgliteStorage({ pglite: {} as never })).toThrow(/options\.pglite/);
  });
});
