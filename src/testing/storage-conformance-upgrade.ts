/**
 * Storage conformance: majors with upgrade functions (docs/evolving-entities.md#majors-and-upgrades,
 * docs/decisions/B40.md). Two majors of one entity served by one API; `api.upgrade` copies every
 * record of v1 to v2 through `up`: each copy's history starts with `entity.upgraded` naming the v1
 * record and version, v1 history stays, a dry run lists what `up` or the v2 schema refuses and
 * writes nothing, a run interrupted mid-batch resumes with every record copied exactly once, and
 * writes to v1 during the copy are all carried over.
 */
import { expect } from 'vitest';
import { defineEntity } from '../entity-document/index.ts';
import { createGovernedApi } from '../governed/http/api.ts';
import type { GovernedContext } from '../governed/types.ts';
import type { StorageDriver, StorageSession } from '../storage/types.ts';
import { workspaceAdminContext } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

const permissions = { view: ['admin'], edit: ['admin'], admin: ['admin'] };
let keys = 0;

/** Both majors of a task entity under a key no other case uses (so its own two tables). */
export function upgradeTaskMajors() {
  const key = `upgrade.task_${Date.now().toString(36)}${(keys++).toString(36)}`;
  const base = {
    $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
    name: 'Task',
    key,
    description: 'A task whose estimate moved from hours to minutes',
    scope: 'workspace-shared',
    governance_tier: 'tier-2',
    permissions,
  } as const;
  const V1 = defineEntity({ ...base, version: '1.2.0', fields: { title: { type: 'string' }, hours: { type: 'integer' } } });
  const V2 = defineEntity(
    { ...base, version: '2.0.0', fields: { title: { type: 'string' }, minutes: { type: 'integer' } } },
    {
      from: V1,
      up(v1) {
        if (v1.title === 'up refuses') throw new Error('cannot upgrade this one');
        // A title the v2 schema refuses (null where a string is required).
        return { title: v1.title === 'schema refuses' ? (null as unknown as string) : v1.title, minutes: v1.hours * 60 };
      },
      down: (v2) => ({ title: v2.title, hours: Math.round(v2.minutes / 60) }),
    },
  );
  return { key, V1, V2 };
}

/** The API serving both majors (`/tasks-v1` and `/tasks`), over `storage`. */
function buildApi(storage: StorageDriver, majors = upgradeTaskMajors()) {
  const api = createGovernedApi({ storage, auth: { secret: 'upgrade-conformance-secret-0123456789' }, resources: { 'tasks-v1': majors.V1, tasks: majors.V2 } });
  return { majors, api, v1: api.resources['tasks-v1']!.service, v2: api.resources.tasks!.service };
}

const context = (): GovernedContext => workspaceAdminContext([], { requestId: 'req-upgrade', traceId: null, ip: null, userAgent: null });

/** A storage whose `insert` throws on its `failAt`-th call inside a transaction: a run killed mid-batch. */
function failingStorage(storage: StorageDriver, failAt: number): StorageDriver {
  let inserts = 0;
  const wrap = (session: StorageSession): StorageSession =>
    new Proxy(session, {
      get(target, property, receiver) {
        if (property === 'insert') {
          return async (...args: Parameters<StorageSession['insert']>) => {
            if (++inserts === failAt) throw new Error('killed mid-batch');
            return target.insert(...args);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'transaction') return <T>(fn: (session: StorageSession) => Promise<T>) => target.transaction((session) => fn(wrap(session)));
      return Reflect.get(target, property, receiver);
    },
  });
}

/** The cases, registered inside the suite's describe. */
export function upgradeConformanceCases(driver: Current): void {
  describe('majors with upgrade functions', () => {
    it('copies every v1 record to v2 through up; each copy starts its v2 history with entity.upgraded naming the v1 record', async () => {
      const { api, v1, v2, majors } = buildApi(driver());
      await api.migrate();
      const ctx = context();
      const created = [];
      for (let i = 0; i < 7; i++) created.push(await v1.create(ctx, { title: `task ${i}`, hours: i }));
      const edited = await v1.update(ctx, created[0]!.data.id, { expectedVersion: 1, hours: 10 });
      const result = await api.upgrade(majors.key, { batchSize: 3 });
      expect(result).toMatchObject({ copied: 7, settled: true, rejected: [], dryRun: false });
      for (const record of created) {
        const copy = await v2.get(ctx, record.data.id);
        const hours = record.data.id === edited.data.id ? 10 : (record.data.hours as number);
        expect(copy.data).toMatchObject({ title: record.data.title, minutes: hours * 60, version: 1 });
      }
      const history = await v2.versions(ctx, edited.data.id);
      expect(history.data.map((entry) => entry.version)).toEqual([1]);
      const audit = await driver().listAudit({ tenantId: ctx.actor.tenantId, resourceId: edited.data.id, limit: 10 });
      const types = audit.records.map((record) => `${record.resourceType}:${record.eventType}`).sort();
      expect(types).toEqual([`upgrade.Task@v1:entity.created`, `upgrade.Task@v1:entity.updated`, `upgrade.Task@v2:entity.upgraded`]);
      const upgraded = audit.records.find((record) => record.eventType === 'entity.upgraded')!;
      expect(upgraded.reason).toBe(`upgraded from upgrade.Task@v1 ${edited.data.id} version 2`);
      // v1 history stays readable.
      expect((await v1.versions(ctx, edited.data.id)).data.map((entry) => entry.version)).toEqual([2, 1]);
      // A second run finds nothing to copy.
      expect(await api.upgrade(majors.key)).toMatchObject({ copied: 0, settled: true });
    });

    it('a dry run lists the records up or the v2 schema refuses, and writes nothing', async () => {
      const { api, v1, v2, majors } = buildApi(driver());
      await api.migrate();
      const ctx = context();
      const good = await v1.create(ctx, { title: 'fine', hours: 1 });
      const byUp = await v1.create(ctx, { title: 'up refuses', hours: 1 });
      const bySchema = await v1.create(ctx, { title: 'schema refuses', hours: 1 });
      const result = await api.upgrade(majors.key, { dryRun: true, batchSize: 2 });
      expect(result).toMatchObject({ dryRun: true, read: 3, copied: 0, rejectedOmitted: 0 });
      const refused = Object.fromEntries(result.rejected.map((record) => [record.id, record]));
      expect(Object.keys(refused).sort()).toEqual([byUp.data.id, bySchema.data.id].sort());
      expect(refused[byUp.data.id]).toMatchObject({ reason: 'up', message: 'cannot upgrade this one', version: 1 });
      expect(refused[bySchema.data.id]).toMatchObject({ reason: 'schema', fields: [{ path: 'title', message: 'Must not be null' }] });
      await expect(v2.get(ctx, good.data.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      // The real run copies the good one and reports the same two.
      const run = await api.upgrade(majors.key);
      expect(run).toMatchObject({ copied: 1, settled: true });
      expect(run.rejected.map((record) => record.id).sort()).toEqual([byUp.data.id, bySchema.data.id].sort());
    });

    it('a run interrupted mid-batch resumes after the last committed batch: every record in v2 exactly once', async () => {
      const storage = driver();
      const { api, v1, v2, majors } = buildApi(storage);
      await api.migrate();
      const ctx = context();
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push((await v1.create(ctx, { title: `task ${i}`, hours: i })).data.id);
      // Same API over a storage that fails on the 6th insert: batches of 4, so the 2nd batch dies half-way.
      const { api: failing } = buildApi(failingStorage(storage, 6), majors);
      await expect(failing.upgrade(majors.key, { batchSize: 4 })).rejects.toThrow('killed mid-batch');
      const resumed = await api.upgrade(majors.key, { batchSize: 4 });
      // The first batch committed (4 copies); the rest are copied by the resumed run.
      expect(resumed).toMatchObject({ copied: 6, settled: true });
      for (const id of ids) expect((await v2.get(ctx, id)).data.version).toBe(1);
      const audit = await storage.listAudit({ tenantId: ctx.actor.tenantId, resourceType: 'upgrade.Task@v2', limit: 100 });
      expect(audit.records).toHaveLength(10);
      expect(new Set(audit.records.map((record) => record.resourceId)).size).toBe(10);
    });

    it('writes to v1 during the copy are carried over: 0 lost', async () => {
      const { api, v1, v2, majors } = buildApi(driver());
      await api.migrate();
      const ctx = context();
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push((await v1.create(ctx, { title: `task ${i}`, hours: 1 })).data.id);
      let writes = 0;
      const writer = async (offset: number) => {
        for (let i = 0; i < 15; i++) {
          const id = ids[(offset + i * 7) % ids.length]!;
          const current = await v1.get(ctx, id);
          await v1.update(ctx, id, { expectedVersion: current.data.version, hours: (current.data.hours as number) + 1 }).then(
            () => writes++,
            () => undefined, // a conflict between the two writers: that write did not happen
          );
          if (i % 5 === 0) ids.push((await v1.create(ctx, { title: `late ${offset}.${i}`, hours: 2 })).data.id);
        }
      };
      await Promise.all([api.upgrade(majors.key, { batchSize: 4 }), writer(0), writer(3)]);
      expect(writes).toBeGreaterThan(0);
      // Once the writers have stopped, a run settles the rest.
      expect(await api.upgrade(majors.key, { batchSize: 4 })).toMatchObject({ settled: true });
      let lost = 0;
      for (const id of ids) {
        const source = await v1.get(ctx, id);
        const copy = await v2.get(ctx, id).catch(() => null);
        if (copy?.data.minutes !== (source.data.hours as number) * 60) lost++;
      }
      expect(lost).toBe(0);
    });
  });
}
