/**
 * Audit export cases of the storage conformance suite (`exportAudit`): the half-open time range,
 * oldest-first order with ties in append order across page boundaries, the resource type and
 * workspace filters, early stop, records read back exactly as the audit pages return them
 * (redacted as stored), and 100,000 records exported with bounded memory (heap growth measured
 * while consuming, compared with the size of the whole export; no timing is asserted).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { beforeAll, expect } from 'vitest';
import { defineEntity } from '../entity-document/index.ts';
import { createGovernedService, type GovernedContext } from '../governed/service.ts';
import type { AuditExportQuery, AuditRecord, RecordScope, StorageDriver } from '../storage/types.ts';
import { auditFor, freshScope, newRecord, taskModel } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

/** How many records the bounded-memory case exports. */
const BULK = 100_000;
/**
 * Records appended per transaction while seeding it, and transactions running at once: one, since
 * a tenant's audit appends are serialised by its verifiable log's head (docs/decisions/B35.md), so
 * parallel seeding transactions of one tenant only wait on each other, past the driver's
 * `lock_timeout` on a loaded machine.
 */
const SEED_BATCH = 2_000;
const SEED_PARALLEL = 1;

/** An audit record of `scope` at `occurredAt` (a fresh resource each time unless given). */
function recordAt(scope: RecordScope, occurredAt: string, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return auditFor(newRecord(scope, {}), { occurredAt, ...overrides });
}

/** Minute `n` of a fixed day, as the core writes instants. */
const minute = (n: number): string => new Date(Date.UTC(2025, 5, 1, 0, n)).toISOString();

async function append(driver: StorageDriver, records: readonly AuditRecord[]): Promise<void> {
  await driver.transaction(async (session) => {
    for (const record of records) await session.appendAudit(record);
  });
}

async function exported(driver: StorageDriver, query: AuditExportQuery): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for await (const record of driver.exportAudit(query)) out.push(record);
  return out;
}

/** `global.gc`, turned on for this process if it was not (the flag is read when `gc` is first resolved). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const entity = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Statement',
  key: 'conformance_export.statement',
  version: '1.0.0',
  description: 'An entity of the audit export conformance cases',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: { title: { type: 'string' }, iban: { type: 'string', optional: true, sensitive: true } },
});

/** Export cases, registered inside the suite's describe. */
export function exportConformanceCases(driver: Current): void {
  describe('audit export: time range, order, filters, bounded memory', () => {
    it('exports the half-open range [from, to) oldest first, ties in append order across pages', async () => {
      const scope = freshScope();
      // Appended out of time order: a back-dated record lands in its place in the export.
      const late = recordAt(scope, minute(3));
      const early = recordAt(scope, minute(1));
      const tie = [recordAt(scope, minute(2)), recordAt(scope, minute(2)), recordAt(scope, minute(2))];
      const edge = recordAt(scope, minute(5));
      const before = recordAt(scope, minute(0));
      await append(driver(), [late, before]);
      await append(driver(), [early, ...tie, edge]);
      const ids = (records: AuditRecord[]) => records.map((record) => record.id);
      const range = { tenantId: scope.tenantId, from: minute(1), to: minute(5) };
      const expected = ids([early, ...tie, late]);
      expect(ids(await exported(driver(), range))).toEqual(expected);
      for (const pageSize of [1, 2, 3]) expect(ids(await exported(driver(), { ...range, pageSize }))).toEqual(expected);
      expect(ids(await exported(driver(), { ...range, to: minute(6) }))).toEqual([...expected, edge.id]);
      expect(ids(await exported(driver(), { ...range, from: minute(0), to: minute(1) }))).toEqual([before.id]);
      expect(await exported(driver(), { ...range, from: minute(2), to: minute(2) })).toEqual([]);
      expect(await exported(driver(), { ...range, tenantId: crypto.randomUUID() })).toEqual([]);
      // Read back exactly as appended.
      expect((await exported(driver(), { ...range, from: minute(3), to: minute(4) }))[0]).toEqual(late);
    });

    it('filters by resource type and by workspaces, never returning tenant-level records to a workspace reach', async () => {
      const a = freshScope();
      const b: RecordScope = { ...a, workspaceId: crypto.randomUUID() };
      const tenantLevel: RecordScope = { ...a, workspaceId: null };
      const task = { resourceType: taskModel.resourceType };
      const records = [
        recordAt(a, minute(1)),
        recordAt(b, minute(2)),
        recordAt(tenantLevel, minute(3)),
        recordAt(a, minute(4), task),
        recordAt(b, minute(5), task),
      ];
      await append(driver(), records);
      const range = { tenantId: a.tenantId, from: minute(0), to: minute(10), pageSize: 2 };
      const ids = async (query: AuditExportQuery) => (await exported(driver(), query)).map((record) => record.id);
      const [r0, r1, r2, r3, r4] = records.map((record) => record.id);
      expect(await ids(range)).toEqual([r0, r1, r2, r3, r4]);
      expect(await ids({ ...range, resourceType: taskModel.resourceType })).toEqual([r3, r4]);
      expect(await ids({ ...range, workspaceIds: [a.workspaceId!] })).toEqual([r0, r3]);
      expect(await ids({ ...range, workspaceIds: [a.workspaceId!, b.workspaceId!] })).toEqual([r0, r1, r3, r4]);
      expect(await ids({ ...range, workspaceIds: [b.workspaceId!], resourceType: taskModel.resourceType })).toEqual([r4]);
      expect(await ids({ ...range, workspaceIds: [] })).toEqual([]);
    });

    it('stops reading when the consumer stops, and exports what the audit pages return (redacted as stored)', async () => {
      const service = createGovernedService({ entity, storage: driver(), redaction: { hashSecret: 'conformance' } });
      await driver().migrate([service.model]);
      const workspaceId = crypto.randomUUID();
      const ctx: GovernedContext = {
        actor: {
          id: crypto.randomUUID(),
          type: 'user',
          tenantId: crypto.randomUUID(),
          roles: [],
          workspaces: { [workspaceId]: ['admin'] },
          permissions: ['audit:read'],
        },
        scope: { workspaceId },
      };
      const secret = 'DE89370400440532013000';
      for (let index = 0; index < 5; index += 1) await service.create(ctx, { title: `s${index}`, iban: secret });
      const page = await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 100 });
      const all = await exported(driver(), { tenantId: ctx.actor.tenantId, from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' });
      expect(all).toEqual([...page.records].reverse().sort((x, y) => (x.occurredAt < y.occurredAt ? -1 : x.occurredAt > y.occurredAt ? 1 : 0)));
      expect(all).toHaveLength(5);
      expect(JSON.stringify(all)).not.toContain(secret);
      const iterator = driver()
        .exportAudit({ tenantId: ctx.actor.tenantId, from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z', pageSize: 2 })
        [Symbol.asyncIterator]();
      expect((await iterator.next()).done).toBe(false);
      expect(await iterator.return?.()).toEqual({ done: true, value: undefined });
      expect((await iterator.next()).done).toBe(true);
    });

    describe('100,000 records', () => {
      const scope = freshScope();
      beforeAll(async () => {
        const start = Date.UTC(2024, 0, 1);
        const batches: AuditRecord[][] = [];
        for (let offset = 0; offset < BULK; offset += SEED_BATCH) {
          batches.push(
            Array.from({ length: Math.min(SEED_BATCH, BULK - offset) }, (_, index) =>
              // Two records per millisecond: ties between neighbours, so the keyset's second column matters.
              recordAt(scope, new Date(start + Math.floor((offset + index) / 2)).toISOString(), {
                diff: [{ op: 'replace', path: '/note', value: `note ${offset + index} `.padEnd(200, '.') }],
              }),
            ),
          );
        }
        for (let next = 0; next < batches.length; next += SEED_PARALLEL)
          await Promise.all(batches.slice(next, next + SEED_PARALLEL).map((batch) => append(driver(), batch)));
      }, 600_000);

      it('exports 100,000 audit records in order with heap growth far below the size of the export', async () => {
        const gc = collector();
        gc();
        const baseline = process.memoryUsage().heapUsed;
        let growth = 0;
        let count = 0;
        let bytes = 0;
        let previous = '';
        let ordered = true;
        for await (const record of driver().exportAudit({ tenantId: scope.tenantId, from: '2024-01-01T00:00:00.000Z', to: '2025-01-01T00:00:00.000Z' })) {
          count += 1;
          bytes += JSON.stringify(record).length + 1;
          if (record.occurredAt < previous) ordered = false;
          previous = record.occurredAt;
          if (count % 10_000 === 0) {
            gc();
            growth = Math.max(growth, process.memoryUsage().heapUsed - baseline);
          }
        }
        expect(count).toBe(BULK);
        expect(ordered).toBe(true);
        expect(bytes).toBeGreaterThan(BULK * 200);
        // What a buffered export would hold is at least its serialised size (here above 20 MB); a
        // streamed one holds a page. A tenth of the export is a generous bound that still fails if it buffers.
        expect(growth).toBeLessThan(bytes / 10);
      }, 600_000);
    });
  });
}
