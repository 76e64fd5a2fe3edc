/**
 * Storage conformance: schema evolution (docs/evolving-entities.md). One entity is driven through
 * a chain of changes on the driver under test, with data and history written at every step:
 * an optional field added, a required field added with a default (backfilled over more rows than
 * one batch, history untouched), an enum widened. After each step no row violates the entity,
 * creates take the defaults, and rollback to a version of an earlier shape writes only values the
 * entity accepts.
 */
import { expect } from 'vitest';
import { defineEntity, type EntityDocumentInput } from '../entity-document/index.ts';
import type { CellgateError } from '../errors.ts';
import { createGovernedService, type GovernedService } from '../governed/service.ts';
import { MIGRATION_BACKFILL_BATCH } from '../limits.ts';
import { MigrationRefusedError } from '../storage/drift.ts';
import type { StorageDriver } from '../storage/types.ts';
import { newRecord, seed, workspaceAdminContext } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;
type Fields = EntityDocumentInput['fields'];

let keys = 0;
/** An entity key (and so a table) no other case or run uses. */
const freshKey = () => `evolution.task_${Date.now().toString(36)}${(keys++).toString(36)}`;

/** The entity document of one step: the same key and major, so the same table. */
function taskEntity(key: string, version: string, fields: Fields) {
  return defineEntity({
    $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
    name: 'Task',
    key,
    version,
    description: 'A task whose shape changes',
    scope: 'workspace-shared',
    governance_tier: 'tier-2',
    permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
    fields,
  } as EntityDocumentInput);
}

const V1: Fields = { title: { type: 'string' }, priority: { type: 'integer', optional: true } };
const V2: Fields = { ...V1, note: { type: 'string', nullable: true } };
const V3: Fields = {
  ...V2,
  status: { type: 'string', enum: ['OPEN', 'DONE'], default: 'OPEN' },
  opened_at: { type: 'string', format: 'date-time', default: { $generate: 'now' } },
  ref: { type: 'string', format: 'uuid', default: { $generate: 'uuid' } },
};
const V4: Fields = { ...V3, status: { type: 'string', enum: ['OPEN', 'DONE', 'BLOCKED'], default: 'OPEN' } };

/** Every record of the service violates nothing of its entity: required fields hold values, enums hold allowed ones. */
async function expectNoViolation(service: GovernedService, context: ReturnType<typeof workspaceAdminContext>, fields: Fields): Promise<number> {
  let seen = 0;
  for (let page = 1; ; page++) {
    const { data } = await service.list(context, { page, pageSize: 100 });
    for (const record of data as Array<Record<string, unknown>>) {
      for (const [name, field] of Object.entries(fields)) {
        const camel = name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
        const value = record[camel];
        if (!field.optional && !field.nullable) expect(value, `${camel} of ${String(record.id)}`).not.toBeNull();
        if (field.enum && value !== null) expect(field.enum).toContain(value);
      }
      seen++;
    }
    if (data.length < 100) return seen;
  }
}

/** Registers the schema-evolution cases. */
export function evolutionConformanceCases(driver: Current): void {
  describe('schema evolution: defaults, backfill and history across shapes', () => {
    it('drives one entity through added fields, a backfilled default and a widened enum, history intact', async () => {
      const key = freshKey();
      const context = workspaceAdminContext([], { requestId: 'req-evolution', traceId: null, ip: '127.0.0.1', userAgent: 'conformance' });
      const open = async (version: string, fields: Fields) => {
        const service = createGovernedService({ entity: taskEntity(key, version, fields), storage: driver() });
        await driver().migrate([service.model]);
        return service;
      };

      // v1: records with history.
      let service = await open('1.0.0', V1);
      const first = await service.create(context, { title: 'Write', priority: 2 });
      const edited = await service.update(context, first.data.id, { expectedVersion: 1, title: 'Write more' });
      expect(edited.data.version).toBe(2);
      // More rows than one backfill batch, written straight to the store (one transaction).
      const scope = { tenantId: context.actor.tenantId, workspaceId: context.scope!.workspaceId!, cellId: null };
      const bulk = Array.from({ length: MIGRATION_BACKFILL_BATCH + 7 }, (_, index) => newRecord(scope, { title: `Bulk ${index}`, priority: null }));
      await seed(driver(), service.model, bulk);
      const auditBefore = (await service.history(context, { resourceId: first.data.id })).data.length;

      // v2: an optional field; old rows read null.
      service = await open('1.1.0', V2);
      expect((await service.get(context, first.data.id)).data.note).toBeNull();
      await expectNoViolation(service, context, V2);

      // v3: required fields with defaults (a constant, now, uuid) over stored rows: backfilled.
      const before = Date.now();
      service = await open('1.2.0', V3);
      expect(await expectNoViolation(service, context, V3)).toBe(bulk.length + 1);
      const filled = (await service.get(context, first.data.id)).data;
      expect(filled).toMatchObject({ status: 'OPEN', version: 2, updatedAt: edited.data.updatedAt });
      expect(Date.parse(filled.openedAt as string)).toBeGreaterThanOrEqual(before - 1000);
      const refs = new Set<unknown>();
      for (const record of bulk.slice(0, 50)) refs.add((await service.get(context, record.id)).data.ref);
      expect(refs.size).toBe(50); // a generator runs per row
      // History untouched: no audit record, and the stored states keep the shape they were written in.
      expect((await service.history(context, { resourceId: first.data.id })).data).toHaveLength(auditBefore);
      const stored = await driver().getVersionState(service.model, scope, first.data.id, 1);
      expect(stored?.fields).not.toHaveProperty('status');
      // Migrating again is a no-op.
      await driver().migrate([service.model]);
      expect((await service.get(context, first.data.id)).data).toEqual(filled);

      // A create that omits the defaulted fields gets them: in the answer, the version state and the audit diff.
      const created = await service.create(context, { title: 'New', note: null });
      expect(created.data).toMatchObject({ status: 'OPEN', note: null });
      expect(created.data.ref).toMatch(/^[0-9a-f-]{36}$/);
      const state = await driver().getVersionState(service.model, scope, created.data.id, 1);
      expect(state?.fields).toMatchObject({ status: 'OPEN', ref: created.data.ref });
      const [audit] = (await service.history(context, { resourceId: created.data.id })).data;
      expect(audit?.diff).toContainEqual({ op: 'add', path: '/status', value: 'OPEN' });

      // Rollback to a version stored before the fields existed keeps their current values.
      const rolled = await service.rollback(context, first.data.id, { targetVersion: 1 });
      expect(rolled.data).toMatchObject({ title: 'Write', priority: 2, status: 'OPEN', ref: filled.ref, version: 3 });

      // v4: an enum widened; the new value is accepted, old rows still valid.
      service = await open('1.3.0', V4);
      const blocked = await service.update(context, first.data.id, { expectedVersion: 3, status: 'BLOCKED' });
      expect(blocked.data.status).toBe('BLOCKED');
      await expectNoViolation(service, context, V4);

      // Narrowed back below a stored value: the boot refuses, naming the column.
      const narrowed = createGovernedService({ entity: taskEntity(key, '1.4.0', V3), storage: driver() });
      await expect(driver().migrate([narrowed.model])).rejects.toBeInstanceOf(MigrationRefusedError);
      await service.update(context, first.data.id, { expectedVersion: 4, status: 'DONE' });
      // And a rollback to a state the entity no longer accepts is refused with 422, naming the field.
      const narrowedWrite = await narrowed.rollback(context, first.data.id, { targetVersion: 4 }).catch((error: CellgateError) => error);
      expect(narrowedWrite).toMatchObject({ status: 422, code: 'INVALID_TARGET_VERSION' });
      expect((narrowedWrite as CellgateError).message).toContain('status');
    });

    it('refuses a required field without a default over stored rows, and accepts it with one', async () => {
      const key = freshKey();
      const context = workspaceAdminContext([], { requestId: 'req-evolution', traceId: null, ip: '127.0.0.1', userAgent: 'conformance' });
      const service = createGovernedService({ entity: taskEntity(key, '1.0.0', V1), storage: driver() });
      await driver().migrate([service.model]);
      await service.create(context, { title: 'Old' });
      const without = createGovernedService({ entity: taskEntity(key, '1.1.0', { ...V1, owner: { type: 'string' } }), storage: driver() });
      const refused = await driver()
        .migrate([without.model])
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(MigrationRefusedError);
      expect((refused as MigrationRefusedError).message).toContain('column owner');
      expect((refused as MigrationRefusedError).message).toContain('Give "owner" a default');
      const withDefault = createGovernedService({
        entity: taskEntity(key, '1.1.0', { ...V1, owner: { type: 'string', default: 'nobody' } }),
        storage: driver(),
      });
      await driver().migrate([withDefault.model]);
      expect((await withDefault.list(context)).data.map((record) => record.owner)).toEqual(['nobody']);
    });
  });
}
