/**
 * Storage conformance: the judge of drift. A driver's `migrate` applies additive changes (an
 * optional field, a widened enum) and refuses, with a `MigrationRefusedError` naming table and
 * column and changing nothing, a table that no longer matches its entity: a type change, a required
 * field added over stored rows, a field made required while rows lack a value, an enum narrowed
 * below a stored value (docs/storage.md#what-migrate-refuses). Each case owns a table of its own.
 */
import { expect } from 'vitest';
import { MigrationRefusedError } from '../storage/drift.ts';
import type { EntityStorageModel, StorageDriver, StorageField } from '../storage/types.ts';
import { freshScope, newRecord, seed } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

const TITLE: StorageField = { name: 'title', type: 'string', nullable: false, required: true };
const PRIORITY: StorageField = { name: 'priority', type: 'integer', nullable: true };

/** A model on a table of its own: `fields` after a required `title`. */
function ticketModel(table: string, fields: StorageField[]): EntityStorageModel {
  return {
    resourceType: `conformance.Drift${table}@v1`,
    table,
    scope: 'workspace-shared',
    fields: [TITLE, ...fields],
    indexedFields: ['created_at', 'updated_at'],
  };
}

let tables = 0;
/** A table name no other case or run uses. */
const freshTable = () => `conformance_drift_${Date.now().toString(36)}_${(tables++).toString(36)}_v1`;

/** Migrates a fresh table for `fields`, stores one record with `values`, and answers the table and the record. */
async function stored(driver: StorageDriver, fields: StorageField[], values: Record<string, unknown>) {
  const table = freshTable();
  const model = ticketModel(table, fields);
  await driver.migrate([model]);
  const scope = freshScope();
  const record = newRecord(scope, { title: 'Old', ...values });
  await seed(driver, model, [record]);
  return { table, model, scope, record };
}

/** Expects `migrate(models)` to be refused for `column` of `table`, with a message that names both. */
async function expectRefused(driver: StorageDriver, models: EntityStorageModel[], table: string, column: string): Promise<MigrationRefusedError> {
  const error = await driver.migrate(models).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MigrationRefusedError);
  const refused = error as MigrationRefusedError;
  expect(refused.refusals.map((refusal) => [refusal.table, refusal.column])).toContainEqual([table, column]);
  expect(refused.message).toContain(`table ${table}, column ${column}`);
  return refused;
}

/** Registers the schema-drift cases. */
export function driftConformanceCases(driver: Current): void {
  describe('schema drift: migrate applies additive changes and refuses the rest', () => {
    it('refuses a type change over stored rows, changing nothing (not even the additive part)', async () => {
      const { table, model, scope, record } = await stored(driver(), [PRIORITY], { priority: 2 });
      const extra: StorageField = { name: 'extra', type: 'string', nullable: true };
      const changed = ticketModel(table, [{ name: 'priority', type: 'string', nullable: true, enum: ['LOW', 'HIGH'] }, extra]);
      const refused = await expectRefused(driver(), [changed], table, 'priority');
      expect(refused.refusals).toHaveLength(1);
      // Nothing was changed: the old entity still migrates cleanly and reads its record as written,
      // and `extra` was not added as text (an integer `extra` is accepted, as for a new column).
      await driver().migrate([model]);
      expect(await driver().get(model, scope, record.id)).toEqual(record);
      await driver().migrate([ticketModel(table, [PRIORITY, { ...extra, type: 'integer' }])]);
    });

    it('refuses a required field added over stored rows, and adds it to an empty table', async () => {
      const { table } = await stored(driver(), [], {});
      const due: StorageField = { name: 'due', type: 'string', nullable: false, required: true };
      await expectRefused(driver(), [ticketModel(table, [due])], table, 'due');
      const empty = freshTable();
      await driver().migrate([ticketModel(empty, [])]);
      await driver().migrate([ticketModel(empty, [due])]);
    });

    it('refuses a field made required while a row has no value in it', async () => {
      const note: StorageField = { name: 'note', type: 'string', nullable: true };
      const { table } = await stored(driver(), [note], { note: null });
      await expectRefused(driver(), [ticketModel(table, [{ ...note, nullable: false, required: true }])], table, 'note');
    });

    it('refuses an enum narrowed below a stored value, naming the value; accepts a widened one', async () => {
      const status: StorageField = { name: 'status', type: 'string', nullable: true, enum: ['OPEN', 'DONE', 'HELD'] };
      const { table, scope, record } = await stored(driver(), [status], { status: 'HELD' });
      const refused = await expectRefused(driver(), [ticketModel(table, [{ ...status, enum: ['OPEN', 'DONE'] }])], table, 'status');
      expect(refused.refusals[0]?.stored).toContain('"HELD"');
      // Narrowed below no stored value, then widened: both accepted.
      await driver().migrate([ticketModel(table, [{ ...status, enum: ['OPEN', 'HELD'] }])]);
      const widened = ticketModel(table, [{ ...status, enum: ['OPEN', 'HELD', 'DONE', 'LATER'] }]);
      await driver().migrate([widened]);
      expect(await driver().get(widened, scope, record.id)).toEqual(record);
    });

    it('adds an optional field over stored rows: old rows read it as null', async () => {
      const { table, scope, record } = await stored(driver(), [], {});
      const added = ticketModel(table, [{ name: 'label', type: 'string', nullable: true }]);
      await driver().migrate([added]);
      const read = await driver().get(added, scope, record.id);
      expect(read?.fields.title).toBe('Old');
      expect(read?.fields.label ?? null).toBeNull();
    });
  });
}
