/**
 * Field-access cases of the storage conformance suite (docs/field-access.md): a record with a
 * field only `hr` may view is written through the governed core on the driver under test; then a
 * `staff` reader's record, list, versions and history answers are serialised and searched for
 * the field's value, lists refuse it as a filter and a sort key whatever the data, and writes and
 * a rollback that would change it answer 403. Filtering happens after storage, so what this
 * proves of a driver is that every read path hands its rows to the same mask.
 */
import { beforeAll, expect } from 'vitest';
import { defineEntity } from '../entity-document/index.ts';
import { CellgateError } from '../errors.ts';
import { createGovernedService, type GovernedContext, type GovernedService } from '../governed/service.ts';
import type { StorageDriver } from '../storage/types.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

const Staffer = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Staffer',
  key: 'conformance_fields.staffer',
  version: '1.0.0',
  description: 'A record with a field only hr may view, for the field-access cases',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions: { view: ['staff', 'hr'], edit: ['staff', 'hr'], admin: ['staff', 'hr'] },
  fields: {
    name: { type: 'string' },
    salary: { type: 'number', optional: true, permissions: { view: ['hr'], edit: ['hr'] } },
    notes: { type: 'string', optional: true, redact: 'hash', permissions: { view: ['hr'], edit: ['hr'] } },
  },
  data: { filtering: { allowedFields: ['name', 'salary'] }, searching: { fields: ['name', 'notes'] }, sorting: { allowedFields: ['name', 'salary'] } },
});

const SALARY = 918273.5;
const NOTES = 'conformance-hidden-notes';

/** A reader holding `role` in `workspaceId`, with history and rollback rights. */
const as = (role: string, workspaceId: string, tenantId: string): GovernedContext => ({
  actor: { id: `conformance-${role}`, type: 'user', tenantId, roles: [], workspaces: { [workspaceId]: [role] }, permissions: ['audit:read', 'audit:restore'] },
  scope: { workspaceId },
});

async function refusal(call: Promise<unknown>): Promise<CellgateError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CellgateError);
  return error as CellgateError;
}

/** Registers the field-access cases. */
export function fieldAccessConformanceCases(driver: Current): void {
  describe('field access', () => {
    let service: GovernedService;
    let hr: GovernedContext;
    let staff: GovernedContext;
    let id = '';
    beforeAll(async () => {
      service = createGovernedService({ entity: Staffer, storage: driver(), audit: { storeSnapshots: true }, redaction: { hashSecret: 'conformance' } });
      await driver().migrate([service.model]);
      const workspaceId = crypto.randomUUID();
      const tenantId = crypto.randomUUID();
      hr = as('hr', workspaceId, tenantId);
      staff = as('staff', workspaceId, tenantId);
      const created = await service.create(hr, { name: 'Ada', salary: SALARY, notes: NOTES });
      id = created.data.id;
      await service.update(hr, id, { expectedVersion: 1, salary: SALARY + 1 });
      await service.update(staff, id, { expectedVersion: 2, name: 'Ada L' });
    });

    it('a reader who may not view a field never reads it: record, list, versions, history', async () => {
      const answers = [
        await service.get(staff, id),
        await service.list(staff, {}),
        await service.versions(staff, id),
        await service.history(staff, { resourceId: id }),
        await service.getAudit(staff, (await service.history(hr, { resourceId: id })).data[0]!.id),
      ];
      for (const answer of answers) {
        const text = JSON.stringify(answer);
        expect(text).not.toContain(String(SALARY));
        expect(text).not.toContain(String(SALARY + 1));
        expect(text).not.toContain(NOTES);
        expect(text).not.toContain('/salary');
        expect(text).not.toContain('"notes":');
      }
      expect((await service.get(staff, id)).meta.hiddenFields).toEqual(['salary', 'notes']);
      expect((await service.get(hr, id)).data.salary).toBe(SALARY + 1);
    });

    it('lists refuse a hidden field as a filter or sort key whatever the data, and q skips it', async () => {
      for (const value of [SALARY + 1, 1]) {
        const error = await refusal(service.list(staff, { filters: [{ field: 'salary', operator: 'equals', value }] }));
        expect({ code: error.code, fields: error.details?.fields }).toEqual({
          code: 'VALIDATION_ERROR',
          fields: [{ path: 'salary', message: 'Unknown filter; filterable fields: name' }],
        });
      }
      expect((await refusal(service.list(staff, { sortBy: 'salary' }))).code).toBe('VALIDATION_ERROR');
      expect((await service.list(staff, { q: NOTES })).meta.total).toBe(0);
      expect((await service.list(hr, { q: NOTES })).meta.total).toBe(1);
    });

    it('writing it, or a rollback that would change it, is 403 naming the field', async () => {
      const write = await refusal(service.update(staff, id, { expectedVersion: 3, salary: 1 }));
      expect({ status: write.status, fields: write.details?.fields }).toEqual({ status: 403, fields: [{ path: 'salary', message: expect.any(String) }] });
      const rollback = await refusal(service.rollback(staff, id, { targetVersion: 1 }));
      expect({ status: rollback.status, paths: ((rollback.details?.fields ?? []) as Array<{ path: string }>).map((field) => field.path) }).toEqual({
        status: 403,
        paths: ['salary'],
      });
      // A write past the record limit does not tell a reader with hidden fields the record's length.
      const small = createGovernedService({ entity: Staffer, storage: driver(), recordLimit: 200 });
      const sized = await small.create(hr, { name: 'Bo', notes: 'n'.repeat(120) });
      const tooLarge = await refusal(small.update(staff, sized.data.id, { expectedVersion: 1, name: 'x'.repeat(60) }));
      expect({ status: tooLarge.status, details: tooLarge.details }).toEqual({ status: 413, details: { limit: 200 } });
      expect(tooLarge.message).not.toMatch(/\b(?!200\b)\d+\b/);
      expect((await refusal(small.update(hr, sized.data.id, { expectedVersion: 1, name: 'x'.repeat(60) }))).details?.length).toBeGreaterThan(200);
      // One that leaves the hidden field as it is goes through.
      expect((await service.rollback(staff, id, { targetVersion: 2 })).meta.version).toBe(4);
    });
  });
}
