/**
 * `runStorageConformance()`: the behaviour every {@link StorageDriver} must show, as vitest cases.
 * cellgate runs it for its memory, SQLite and PostgreSQL drivers; a third-party driver proves
 * itself with the same call.
 *
 * The cases are grouped in named suites ({@link storageConformanceSuites}); a caller runs a subset
 * with `suites`, turns single tests off with a reason with `disable`, and a suite that needs a
 * driver capability (`durable`, `multiProcess`, `appendOnlyAuditEnforced`) skips its tests, with
 * the reason, for a driver that declares it lacks it.
 *
 * @example
 * import { runStorageConformance } from 'cellgate/testing';
 * runStorageConformance({ name: 'my-driver', create: () => myStorage(), teardown: (d) => d.close() });
 */
import { afterAll, beforeAll, beforeEach, describe as vitestDescribe, expect } from 'vitest';
import { CellgateError, ConfigurationError } from '../errors.ts';
import type { StorageCapabilities, StorageDriver } from '../storage/types.ts';
import {
  auditFor,
  conformanceModels,
  freshScope,
  invoiceFields,
  invoiceModel,
  invoiceV2Model,
  newRecord,
  nextVersion,
  seed,
  settingModel,
  taskModel,
} from './storage-conformance-fixtures.ts';
import { changeSetConformanceCases } from './storage-conformance-change-sets.ts';
import { driftConformanceCases } from './storage-conformance-drift.ts';
import { erasureConformanceCases } from './storage-conformance-erasure.ts';
import { evolutionConformanceCases } from './storage-conformance-evolution.ts';
import { upgradeConformanceCases } from './storage-conformance-upgrade.ts';
import { eventConformanceCases } from './storage-conformance-events.ts';
import { exportConformanceCases } from './storage-conformance-export.ts';
import { logConformanceCases } from './storage-conformance-log.ts';
import { lifecycleConformanceCases } from './storage-conformance-lifecycle.ts';
import { listConformanceCases } from './storage-conformance-lists.ts';
import { reachConformanceCases } from './storage-conformance-reach.ts';
import { referenceConformanceCases } from './storage-conformance-references.ts';
import { fieldAccessConformanceCases } from './storage-conformance-field-access.ts';
import { describe, it, registerWith } from './storage-conformance-select.ts';
import { serviceConformanceCases, type RawAuditRows } from './storage-conformance-service.ts';
import { timeTravelConformanceCases } from './storage-conformance-time-travel.ts';

export type { RawAuditRows } from './storage-conformance-service.ts';

/** Options of {@link runStorageConformance}. */
export interface StorageConformanceOptions {
  /** Shown in the suite title, e.g. `sqlite`. */
  name: string;
  /** Creates the driver under test (once per suite); the suite migrates it. */
  create(): StorageDriver | Promise<StorageDriver>;
  /** Runs before every case (cases use fresh tenants, so this is rarely needed). */
  reset?(driver: StorageDriver): Promise<void>;
  /** Runs once after the suite. @default driver.close() */
  teardown?(driver: StorageDriver): Promise<void>;
  /** When set, every case is skipped and this reason is shown. */
  skip?: string;
  /**
   * Reads a tenant's audit rows straight from the store, so the redaction case can prove no
   * sensitive value was persisted (not just hidden by the seam). Optional.
   */
  rawAuditRows?: RawAuditRows;
  /**
   * Tries to change and to remove a tenant's audit rows straight in the store (an UPDATE and a
   * DELETE), for the `append-only-audit` suite; each attempt must reject. Without it that suite
   * skips, saying so.
   */
  tamperAudit?: (driver: StorageDriver, tenantId: string, statement: 'update' | 'delete') => Promise<unknown>;
  /**
   * Names of the suites to run (see {@link storageConformanceSuites}). An unknown name is a
   * ConfigurationError.
   * @default every suite
   * @example ['records', 'transactions']
   */
  suites?: readonly StorageSuiteName[];
  /**
   * Tests to skip, by test name, each with the reason shown in its title. A name that matches no
   * test is a ConfigurationError, so a renamed test does not silently run again.
   * @default {}
   * @example { 'lets exactly one of many concurrent writers with the same expected version win': 'single-threaded store' }
   */
  disable?: Readonly<Record<string, string>>;
}

type Current = () => StorageDriver;

/** One named group of conformance cases, and the driver capabilities its cases need. */
export interface StorageConformanceSuite {
  readonly name: string;
  /** Capabilities a driver must declare `true` for these cases to run; otherwise they skip with the reason. */
  readonly requires?: readonly (keyof StorageCapabilities)[];
  register(driver: Current, options: StorageConformanceOptions): void;
}

/**
 * Every suite, in run order. A new suite is one entry here (its cases import `it` from
 * `storage-conformance-select.ts`, so `disable` and capability skips apply to them).
 */
export const storageConformanceSuites = [
  { name: 'records', register: crudCases },
  { name: 'transactions', register: transactionCases },
  { name: 'audit', register: auditCases },
  { name: 'version-state-and-idempotency', register: versionAndIdempotencyCases },
  { name: 'lists', register: listConformanceCases },
  { name: 'migrations', register: migrationCases },
  { name: 'schema-drift', register: driftConformanceCases },
  { name: 'service', register: (driver, options) => serviceConformanceCases(driver, options.rawAuditRows) },
  { name: 'events', register: eventConformanceCases },
  { name: 'audit-export', register: exportConformanceCases },
  { name: 'schema-evolution', register: evolutionConformanceCases },
  { name: 'major-upgrades', register: upgradeConformanceCases },
  { name: 'verifiable-log', register: logConformanceCases },
  { name: 'history-reach', register: reachConformanceCases },
  { name: 'field-access', register: fieldAccessConformanceCases },
  { name: 'erasure', register: (driver, options) => erasureConformanceCases(driver, options.rawAuditRows) },
  { name: 'lifecycle', register: lifecycleConformanceCases },
  { name: 'change-sets', register: changeSetConformanceCases },
  { name: 'references', register: referenceConformanceCases },
  { name: 'time-travel', register: timeTravelConformanceCases },
  { name: 'durability', requires: ['durable'], register: durabilityCases },
  { name: 'shared-store', requires: ['multiProcess'], register: sharedStoreCases },
  { name: 'append-only-audit', requires: ['appendOnlyAuditEnforced'], register: appendOnlyAuditCases },
] as const satisfies readonly StorageConformanceSuite[];

/** The name of a conformance suite. */
export type StorageSuiteName = (typeof storageConformanceSuites)[number]['name'];

function selectedSuites(names: readonly string[] | undefined): readonly StorageConformanceSuite[] {
  if (names === undefined) return storageConformanceSuites;
  const known = storageConformanceSuites.map((suite) => suite.name as string);
  for (const [index, name] of names.entries()) {
    if (!known.includes(name)) throw new ConfigurationError(`options.suites.${index}`, `"${name}" is not a suite; suites: ${known.join(', ')}`);
  }
  return storageConformanceSuites.filter((suite) => names.includes(suite.name));
}

/** Registers the conformance cases for one driver. */
export function runStorageConformance(options: StorageConformanceOptions): void {
  const suites = selectedSuites(options.suites);
  const disable = options.disable ?? {};
  const title = options.skip ? `storage conformance: ${options.name} (skipped: ${options.skip})` : `storage conformance: ${options.name}`;
  vitestDescribe.skipIf(Boolean(options.skip))(title, () => {
    let driver: StorageDriver;
    const current = () => driver;
    const matched = new Set<string>();
    beforeAll(async () => {
      // Every block is collected by now: a `disable` name that matched nothing is a typo.
      const unmatched = Object.keys(disable).filter((name) => !matched.has(name));
      if (unmatched.length > 0) {
        throw new ConfigurationError('options.disable', `no selected test is named ${unmatched.map((name) => `"${name}"`).join(', ')}`);
      }
      driver = await options.create();
      await driver.migrate(conformanceModels);
    });
    if (options.reset) beforeEach(() => options.reset!(driver));
    afterAll(async () => {
      if (!driver) return;
      await release(options, driver);
    });

    for (const suite of suites) {
      const requires = suite.requires ?? [];
      const register = () => registerWith({ disable, matched, requires, driver: current }, () => suite.register(current, options));
      // The suites without needs name their own describe blocks; a gated one says what it needs.
      if (requires.length === 0) register();
      else describe(`${suite.name} (needs capabilities.${requires.join(', ')})`, register);
    }
  });
}

/** Closes a driver the way the caller asked (`teardown`, else `close()`). */
function release(options: StorageConformanceOptions, driver: StorageDriver): Promise<void> {
  return options.teardown ? options.teardown(driver) : driver.close();
}

function crudCases(driver: Current): void {
  describe('records', () => {
    it('reads back exactly what was inserted, every type included', async () => {
      const scope = freshScope();
      const record = newRecord(
        scope,
        invoiceFields({
          number: 'Ünïcødé 🧾 "quoted" \'single\' % _ \\',
          amount: -1234.5678,
          quantity: 9007199254740991,
          paid: true,
          due_date: '2026-03-01T12:30:45.123Z',
          customer_id: '0b6c1f3e-9a51-4a8e-8a0c-2f0e4b8f9d11',
          email: 'a@example.com',
          lines: [{ sku: 'A', qty: 2 }, 'x', 3, null, true],
          details: { nested: { deep: [1, 2, { ok: false }] }, emoji: '✓' },
          note: '',
        }),
      );
      await seed(driver(), invoiceModel, [record]);
      expect(await driver().get(invoiceModel, scope, record.id)).toEqual(record);
    });

    it('finds a record only in its own tenant, workspace and cell', async () => {
      const scope = freshScope(true);
      const record = newRecord(scope, { title: 'x', done: false });
      await seed(driver(), taskModel, [record]);
      expect(await driver().get(taskModel, scope, record.id)).toEqual(record);
      expect(await driver().get(taskModel, { ...scope, tenantId: crypto.randomUUID() }, record.id)).toBeNull();
      expect(await driver().get(taskModel, { ...scope, workspaceId: crypto.randomUUID() }, record.id)).toBeNull();
      expect(await driver().get(taskModel, { ...scope, cellId: crypto.randomUUID() }, record.id)).toBeNull();
      expect(await driver().get(taskModel, { ...scope, cellId: null }, record.id)).toBeNull();
      expect(await driver().get(taskModel, scope, crypto.randomUUID())).toBeNull();
    });

    it('stores system-global records without a workspace', async () => {
      const scope = { tenantId: crypto.randomUUID(), workspaceId: null, cellId: null };
      const record = newRecord(scope, { value: 'on' });
      await seed(driver(), settingModel, [record]);
      expect(await driver().get(settingModel, scope, record.id)).toEqual(record);
      expect(await driver().get(settingModel, { ...scope, workspaceId: crypto.randomUUID() }, record.id)).toBeNull();
    });

    it('updates only when id, scope and expected version all match', async () => {
      const scope = freshScope();
      const v1 = newRecord(scope, invoiceFields());
      await seed(driver(), invoiceModel, [v1]);
      const v2 = nextVersion(v1, { amount: 7, note: 'changed' });
      const written = await driver().transaction((session) => session.update(invoiceModel, v2, 1));
      expect(written).toEqual(v2);
      expect(await driver().get(invoiceModel, scope, v1.id)).toEqual(v2);

      const stale = await driver().transaction((session) => session.update(invoiceModel, nextVersion(v1, { amount: 8 }), 1));
      expect(stale).toBeNull();
      const otherScope = await driver().transaction((session) => session.update(invoiceModel, { ...nextVersion(v2), workspaceId: crypto.randomUUID() }, 2));
      expect(otherScope).toBeNull();
      const missing = await driver().transaction((session) => session.update(invoiceModel, { ...nextVersion(v2), id: crypto.randomUUID() }, 2));
      expect(missing).toBeNull();
      expect(await driver().get(invoiceModel, scope, v1.id)).toEqual(v2);
    });

    it('keeps a soft-deleted record readable by id', async () => {
      const scope = freshScope();
      const v1 = newRecord(scope, invoiceFields());
      await seed(driver(), invoiceModel, [v1]);
      const deleted = { ...nextVersion(v1), deletedAt: '2026-06-01T00:00:00.000Z', deletedBy: 'actor-2' };
      expect(await driver().transaction((session) => session.update(invoiceModel, deleted, 1))).toEqual(deleted);
      expect(await driver().get(invoiceModel, scope, v1.id)).toEqual(deleted);
    });

    it('refuses a second record with the same id', async () => {
      const record = newRecord(freshScope(), invoiceFields());
      await seed(driver(), invoiceModel, [record]);
      await expect(driver().transaction((session) => session.insert(invoiceModel, record))).rejects.toBeDefined();
    });
  });
}

function transactionCases(driver: Current): void {
  describe('transactions', () => {
    it('rolls back everything when fn throws, and rethrows its error', async () => {
      const scope = freshScope();
      const record = newRecord(scope, invoiceFields());
      const failure = new Error('boom');
      const attempt = driver().transaction(async (session) => {
        await session.insert(invoiceModel, record);
        await session.putVersionState(invoiceModel, record);
        await session.appendAudit(auditFor(record));
        await session.putIdempotency({
          tenantId: scope.tenantId,
          actorId: 'a',
          key: 'k',
          requestHash: 'h',
          status: 201,
          body: '{}',
          createdAt: record.createdAt,
        });
        expect(await session.get(invoiceModel, scope, record.id)).toEqual(record);
        throw failure;
      });
      await expect(attempt).rejects.toBe(failure);
      expect(await driver().get(invoiceModel, scope, record.id)).toBeNull();
      expect(await driver().getVersionState(invoiceModel, scope, record.id, 1)).toBeNull();
      expect((await driver().listAudit({ tenantId: scope.tenantId, limit: 10 })).records).toEqual([]);
      expect(await driver().getIdempotency(scope.tenantId, 'a', 'k')).toBeNull();
    });

    it('resolves with what fn resolves', async () => {
      expect(await driver().transaction(async () => 42)).toBe(42);
    });

    it('lets exactly one of many concurrent writers with the same expected version win', async () => {
      const scope = freshScope();
      const v1 = newRecord(scope, invoiceFields());
      await seed(driver(), invoiceModel, [v1]);
      const outcomes = await Promise.all(
        Array.from({ length: 16 }, (_, index) =>
          driver().transaction(async (session) => {
            const current = await session.get(invoiceModel, scope, v1.id);
            if (current?.version !== 1) return false;
            const next = nextVersion(current, { amount: index });
            if (!(await session.update(invoiceModel, next, 1))) return false;
            await session.putVersionState(invoiceModel, next);
            await session.appendAudit(auditFor(next));
            return true;
          }),
        ),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect((await driver().get(invoiceModel, scope, v1.id))?.version).toBe(2);
      expect((await driver().listAudit({ tenantId: scope.tenantId, resourceId: v1.id, limit: 50 })).records).toHaveLength(1);
    });

    it('loses no update when concurrent writers retry until they win', async () => {
      const scope = freshScope();
      const v1 = newRecord(scope, invoiceFields({ quantity: 0 }));
      await seed(driver(), invoiceModel, [v1]);
      const writers = 8;
      await Promise.all(
        Array.from({ length: writers }, async () => {
          for (let attempt = 0; attempt < 100; attempt += 1) {
            const won = await driver().transaction(async (session) => {
              const current = (await session.get(invoiceModel, scope, v1.id))!;
              const next = nextVersion(current, { quantity: (current.fields.quantity as number) + 1 });
              if (!(await session.update(invoiceModel, next, current.version))) return false;
              await session.putVersionState(invoiceModel, next);
              await session.appendAudit(auditFor(next));
              return true;
            });
            if (won) return;
          }
          throw new Error('writer never won');
        }),
      );
      const final = await driver().get(invoiceModel, scope, v1.id);
      expect(final?.version).toBe(writers + 1);
      expect(final?.fields.quantity).toBe(writers);
      const audit = await driver().listAudit({ tenantId: scope.tenantId, resourceId: v1.id, limit: 50 });
      expect(audit.records.map((r) => r.resourceVersion)).toEqual(Array.from({ length: writers }, (_, i) => writers + 1 - i));
    });
  });
}

function auditCases(driver: Current): void {
  describe('audit', () => {
    it('reads an audit record back field for field', async () => {
      const record = newRecord(freshScope(true), invoiceFields());
      const audit = auditFor(record, {
        eventType: 'entity.rollback',
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        diff: null,
        snapshot: { amount: 5, note: 'Ä', list: [1, { x: null }] },
        changeKind: 'snapshot',
        redactionApplied: false,
        tags: ['finance', 'ünïcode'],
        reason: 'customer asked',
        changeSetId: crypto.randomUUID(),
        actorType: 'service',
        userAgent: null,
        ip: null,
      });
      await driver().transaction((session) => session.appendAudit(audit));
      expect(await driver().getAudit(record.tenantId, audit.id)).toEqual(audit);
      expect(await driver().getAudit(crypto.randomUUID(), audit.id)).toBeNull();
      expect(await driver().getAudit(record.tenantId, crypto.randomUUID())).toBeNull();
    });

    it('lists newest first and pages with a cursor without gaps or repeats', async () => {
      const scope = freshScope();
      let record = newRecord(scope, invoiceFields());
      const appended = [];
      for (let version = 1; version <= 7; version += 1) {
        const audit = auditFor(record);
        appended.push(audit.id);
        await driver().transaction((session) => session.appendAudit(audit));
        record = nextVersion(record);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const result = await driver().listAudit({
          tenantId: scope.tenantId,
          resourceType: invoiceModel.resourceType,
          resourceId: record.id,
          limit: 3,
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...result.records.map((r) => r.id));
        if (result.nextCursor === null) break;
        cursor = result.nextCursor;
      }
      expect(seen).toEqual([...appended].reverse());
    });

    it('narrows by workspace, cell, resource type and resource id within the tenant', async () => {
      const scope = freshScope(true);
      const a = newRecord(scope, invoiceFields());
      const b = newRecord({ ...scope, cellId: crypto.randomUUID() }, invoiceFields());
      const c = newRecord({ ...scope, workspaceId: crypto.randomUUID(), cellId: null }, invoiceFields());
      await driver().transaction(async (session) => {
        await session.appendAudit(auditFor(a));
        await session.appendAudit(auditFor(b, { resourceType: taskModel.resourceType }));
        await session.appendAudit(auditFor(c));
      });
      const ids = async (query: Partial<Parameters<StorageDriver['listAudit']>[0]>) =>
        (await driver().listAudit({ tenantId: scope.tenantId, limit: 10, ...query })).records.map((r) => r.resourceId).sort();
      expect(await ids({})).toEqual([a.id, b.id, c.id].sort());
      expect(await ids({ workspaceId: scope.workspaceId! })).toEqual([a.id, b.id].sort());
      expect(await ids({ workspaceId: scope.workspaceId!, cellId: scope.cellId! })).toEqual([a.id]);
      expect(await ids({ resourceType: taskModel.resourceType })).toEqual([b.id]);
      expect(await ids({ resourceId: c.id })).toEqual([c.id]);
      expect(await ids({ tenantId: crypto.randomUUID() })).toEqual([]);
    });

    it('narrows by change set, and reads a record written without one as null', async () => {
      const scope = freshScope(true);
      const changeSetId = crypto.randomUUID();
      const [a, b, c] = [newRecord(scope, invoiceFields()), newRecord(scope, invoiceFields()), newRecord(scope, invoiceFields())];
      const { changeSetId: _absent, ...alone } = auditFor(c);
      await driver().transaction(async (session) => {
        await session.appendAudit(auditFor(a!, { changeSetId }));
        await session.appendAudit(auditFor(b!, { changeSetId }));
        await session.appendAudit(alone);
      });
      const page = await driver().listAudit({ tenantId: scope.tenantId, changeSetId, limit: 10 });
      expect(page.records.map((r) => r.resourceId).sort()).toEqual([a!.id, b!.id].sort());
      expect(page.records.every((r) => r.changeSetId === changeSetId)).toBe(true);
      expect((await driver().listAudit({ tenantId: crypto.randomUUID(), changeSetId, limit: 10 })).records).toEqual([]);
      const other = await driver().listAudit({ tenantId: scope.tenantId, resourceId: c!.id, limit: 10 });
      expect(other.records.map((r) => r.changeSetId)).toEqual([null]);
    });

    it('rejects a malformed cursor with VALIDATION_ERROR', async () => {
      for (const cursor of ['not a cursor', '', '!!!', 'bS4t', 'LTE']) {
        const error = await driver()
          .listAudit({ tenantId: crypto.randomUUID(), limit: 5, cursor })
          .catch((caught: unknown) => caught);
        expect(error, cursor).toBeInstanceOf(CellgateError);
        expect((error as CellgateError).code).toBe('VALIDATION_ERROR');
      }
    });
  });
}

function versionAndIdempotencyCases(driver: Current): void {
  describe('version state', () => {
    it('returns the state stored for (id, version) in its scope only', async () => {
      const scope = freshScope();
      const v1 = newRecord(scope, invoiceFields({ details: { a: 1 } }));
      const v2 = nextVersion(v1, { amount: 2 });
      await driver().transaction(async (session) => {
        await session.putVersionState(invoiceModel, v1);
        await session.putVersionState(invoiceModel, v2);
      });
      expect(await driver().getVersionState(invoiceModel, scope, v1.id, 1)).toEqual(v1);
      expect(await driver().getVersionState(invoiceModel, scope, v1.id, 2)).toEqual(v2);
      expect(await driver().getVersionState(invoiceModel, scope, v1.id, 3)).toBeNull();
      expect(await driver().getVersionState(invoiceModel, { ...scope, tenantId: crypto.randomUUID() }, v1.id, 1)).toBeNull();
      expect(await driver().getVersionState(invoiceV2Model, scope, v1.id, 1)).toBeNull();
    });
  });

  describe('idempotency keys', () => {
    it('stores the first answer only, per tenant and actor', async () => {
      const tenantId = crypto.randomUUID();
      const first = {
        tenantId,
        actorId: 'actor-1',
        key: 'key-1',
        requestHash: 'h1',
        status: 201,
        body: '{"data":{"id":"1"}}',
        createdAt: '2026-01-01T00:00:00.000Z',
      };
      expect(await driver().transaction((session) => session.putIdempotency(first))).toBe(true);
      expect(await driver().transaction((session) => session.putIdempotency({ ...first, requestHash: 'h2', body: '{}' }))).toBe(false);
      expect(await driver().getIdempotency(tenantId, 'actor-1', 'key-1')).toEqual(first);
      expect(await driver().getIdempotency(tenantId, 'actor-2', 'key-1')).toBeNull();
      expect(await driver().transaction((session) => session.putIdempotency({ ...first, actorId: 'actor-2' }))).toBe(true);
      expect(await driver().getIdempotency(crypto.randomUUID(), 'actor-1', 'key-1')).toBeNull();
    });

    it('takes over a key whose record expired, and keeps one that has not', async () => {
      const tenantId = crypto.randomUUID();
      const first = {
        tenantId,
        actorId: 'a',
        key: 'k',
        requestHash: 'h1',
        status: 201,
        body: '{"id":"1","version":1}',
        createdAt: '2001-01-01T00:00:00.000Z',
        expiresAt: '2001-01-02T00:00:00.000Z',
      };
      expect(await driver().transaction((session) => session.putIdempotency(first))).toBe(true);
      expect(await driver().getIdempotency(tenantId, 'a', 'k')).toEqual(first);
      // Still live at the new record's time: refused.
      expect(
        await driver().transaction((session) =>
          session.putIdempotency({ ...first, requestHash: 'h2', createdAt: '2001-01-01T12:00:00.000Z', expiresAt: '2001-01-02T12:00:00.000Z' }),
        ),
      ).toBe(false);
      const second = {
        ...first,
        requestHash: 'h3',
        body: '{"id":"2","version":1}',
        createdAt: '2001-01-02T00:00:00.000Z',
        expiresAt: '2001-01-03T00:00:00.000Z',
      };
      expect(await driver().transaction((session) => session.putIdempotency(second))).toBe(true);
      expect(await driver().getIdempotency(tenantId, 'a', 'k')).toEqual(second);
    });

    it('sweeps expired keys in bounded batches and keeps live ones', async () => {
      const tenantId = crypto.randomUUID();
      const entry = (key: string, expiresAt: string) => ({
        tenantId,
        actorId: 'a',
        key,
        requestHash: 'h',
        status: 201,
        body: '{}',
        createdAt: '1990-01-01T00:00:00.000Z',
        expiresAt,
      });
      const expired = ['e1', 'e2', 'e3', 'e4', 'e5'].map((key) => entry(key, '1990-01-02T00:00:00.000Z'));
      const live = entry('live', '2999-01-01T00:00:00.000Z');
      await driver().transaction(async (session) => {
        for (const record of [...expired, live]) expect(await session.putIdempotency(record)).toBe(true);
      });
      expect(await driver().sweepIdempotency('1990-06-01T00:00:00.000Z', 2)).toBe(2);
      let swept = 2;
      for (let round = 0; round < 10 && swept < expired.length; round++) swept += await driver().sweepIdempotency('1990-06-01T00:00:00.000Z', 2);
      expect(swept).toBe(expired.length);
      for (const record of expired) expect(await driver().getIdempotency(tenantId, 'a', record.key)).toBeNull();
      expect(await driver().getIdempotency(tenantId, 'a', 'live')).toEqual(live);
    });
  });
}

function migrationCases(driver: Current): void {
  describe('migrations', () => {
    it('migrates again without losing data, and keeps majors in separate tables', async () => {
      const scope = freshScope();
      const id = crypto.randomUUID();
      const v1 = newRecord(scope, invoiceFields(), id);
      const v2 = newRecord(scope, { number: 'INV-1', total_cents: 12_345 }, id);
      await seed(driver(), invoiceModel, [v1]);
      await seed(driver(), invoiceV2Model, [v2]);
      await driver().migrate(conformanceModels);
      await driver().migrate([invoiceV2Model, invoiceModel]);
      expect(await driver().get(invoiceModel, scope, id)).toEqual(v1);
      expect(await driver().get(invoiceV2Model, scope, id)).toEqual(v2);
    });
  });
}

function durabilityCases(_driver: Current, options: StorageConformanceOptions): void {
  it('keeps what a committed transaction wrote for a new driver after the writer closed', async () => {
    const writer = await options.create();
    const scope = freshScope();
    const record = newRecord(scope, invoiceFields());
    try {
      await writer.migrate(conformanceModels);
      await seed(writer, invoiceModel, [record]);
    } finally {
      await release(options, writer);
    }
    const reader = await options.create();
    try {
      expect(await reader.get(invoiceModel, scope, record.id)).toEqual(record);
    } finally {
      await release(options, reader);
    }
  });
}

function sharedStoreCases(driver: Current, options: StorageConformanceOptions): void {
  it('lets exactly one of two drivers on one store win a conditional update, and both see it', async () => {
    const other = await options.create();
    try {
      const scope = freshScope();
      const v1 = newRecord(scope, invoiceFields());
      await seed(driver(), invoiceModel, [v1]);
      const outcomes = await Promise.all(
        [driver(), other].map((writer, index) => writer.transaction((session) => session.update(invoiceModel, nextVersion(v1, { amount: index }), 1))),
      );
      const winners = outcomes.filter((outcome) => outcome !== null);
      expect(winners).toHaveLength(1);
      expect(await other.get(invoiceModel, scope, v1.id)).toEqual(winners[0]);
      expect(await driver().get(invoiceModel, scope, v1.id)).toEqual(winners[0]);
    } finally {
      await release(options, other);
    }
  });
}

function appendOnlyAuditCases(driver: Current, options: StorageConformanceOptions): void {
  it('rejects an UPDATE and a DELETE of audit rows made straight in the store', async (context) => {
    if (!options.tamperAudit) {
      context.skip('the runner gave no tamperAudit option to reach the store directly');
      return;
    }
    const record = newRecord(freshScope(), invoiceFields());
    const audit = auditFor(record);
    await driver().transaction((session) => session.appendAudit(audit));
    await expect(options.tamperAudit(driver(), record.tenantId, 'update')).rejects.toBeDefined();
    await expect(options.tamperAudit(driver(), record.tenantId, 'delete')).rejects.toBeDefined();
    expect(await driver().getAudit(record.tenantId, audit.id)).toEqual(audit);
  });
}
