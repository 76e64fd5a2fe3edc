/**
 * The memory driver's side of the judge of drift (../drift.ts). A memory store has no schema of
 * its own, so the model it last migrated for a table stands in for one: a field whose type changed
 * since is refused while rows exist, and the rows are judged like SQL rows (required values,
 * enum values). A store used by one model only never meets drift (docs/decisions/B23.md).
 */
import { defaultValue } from '../../entity-document/default-value.ts';
import { MIGRATION_BACKFILL_BATCH } from '../../limits.ts';
import { judgeStoredRows, refuseDrift, TYPE_CHANGE_WAY, type DriftRefusal, type StoredRows } from '../drift.ts';
import type { EntityStorageModel, StorageField, StoredRecord } from '../types.ts';

/** What a SQL column would be: the type, and the formats stored in a type of their own. */
const kindOf = (field: StorageField) => (field.format === 'date-time' || field.format === 'uuid' ? `${field.type} (${field.format})` : field.type);

function rowsOf(records: ReadonlyMap<string, StoredRecord>, renames: ReadonlyMap<string, string>): StoredRows {
  // A field renamed since is read under its former name until the rename is made (after the verdict).
  const values = (column: string) => Array.from(records.values(), (record) => record.fields[renames.get(column) ?? column]);
  return {
    hasRows: async () => records.size > 0,
    hasMissing: async (column) => values(column).some((value) => value === null || value === undefined),
    async valuesOutside(column, allowed, limit) {
      const outside = new Set<unknown>();
      for (const value of values(column)) {
        if (outside.size >= limit) break;
        if (value !== null && value !== undefined && !allowed.includes(value as string)) outside.add(value);
      }
      return [...outside];
    },
  };
}

/**
 * Fills `field` with its default in the records that lack it, a batch at a time (the event loop
 * turns between batches). The record is replaced, never changed in place: version states and
 * audit records are separate copies and keep the shape they were written with.
 */
async function backfill(rows: Map<string, StoredRecord>, field: StorageField): Promise<void> {
  let filled = 0;
  for (const [id, record] of rows) {
    const value = record.fields[field.name];
    if (value !== null && value !== undefined) continue;
    rows.set(id, { ...record, fields: { ...record.fields, [field.name]: defaultValue(field.default ?? null) } });
    if (++filled % MIGRATION_BACKFILL_BATCH === 0) await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** Moves each record's value from a field's former name to its new one (a replaced record, never changed in place). */
function rename(rows: Map<string, StoredRecord>, renames: ReadonlyMap<string, string>): void {
  for (const [id, record] of rows) {
    const fields = { ...record.fields };
    for (const [to, from] of renames) {
      if (!Object.hasOwn(fields, from)) continue;
      fields[to] = fields[from];
      delete fields[from];
    }
    rows.set(id, { ...record, fields });
  }
}

/** Judges `models` against the stored records; throws `MigrationRefusedError`, else backfills defaults and remembers the models. */
export function createMemoryDriftJudge(records: (table: string) => Map<string, StoredRecord> | undefined) {
  const shapes = new Map<string, EntityStorageModel>();
  return async (models: readonly EntityStorageModel[]): Promise<void> => {
    const refusals: DriftRefusal[] = [];
    const backfills: Array<[Map<string, StoredRecord>, StorageField]> = [];
    const pendingRenames: Array<[Map<string, StoredRecord>, Map<string, string>]> = [];
    for (const model of models) {
      const rows = records(model.table);
      if (rows === undefined || rows.size === 0) continue;
      const previous = shapes.get(model.table);
      const mismatched = new Set<string>();
      for (const field of model.fields) {
        const before = previous?.fields.find((candidate) => candidate.name === field.name);
        if (before === undefined || kindOf(before) === kindOf(field)) continue;
        mismatched.add(field.name);
        refusals.push({ table: model.table, column: field.name, stored: kindOf(before), wanted: kindOf(field), way: TYPE_CHANGE_WAY });
      }
      const columns = new Set((previous ?? model).fields.map((field) => field.name));
      // `renamed_from`: the memory store has no schema to migrate, so the rename is made here (no migration file).
      const renames = new Map<string, string>();
      for (const field of model.fields) {
        if (field.renamedFrom === undefined || columns.has(field.name) || !columns.has(field.renamedFrom)) continue;
        renames.set(field.name, field.renamedFrom);
        columns.add(field.name);
      }
      if (renames.size > 0) pendingRenames.push([rows, renames]);
      const verdict = await judgeStoredRows(model, columns, rowsOf(rows, renames), mismatched);
      refusals.push(...verdict.refusals);
      for (const field of verdict.backfills) backfills.push([rows, field]);
    }
    refuseDrift(refusals);
    for (const [rows, renames] of pendingRenames) rename(rows, renames);
    for (const [rows, field] of backfills) await backfill(rows, field);
    for (const model of models) shapes.set(model.table, model);
  };
}
