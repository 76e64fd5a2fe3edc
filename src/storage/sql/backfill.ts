/**
 * Backfill of a required field added with a `default` (docs/evolving-entities.md,
 * docs/decisions/B31.md). The migration's own transaction adds the column and records a pending
 * marker in `cellgate_migrations` (`backfill:<table>.<column>`); once it has committed, the rows
 * are filled in batches of {@link MIGRATION_BACKFILL_BATCH}, each its own transaction, walking
 * the primary key. A killed run leaves the marker pending and the next `migrate` goes on; the
 * last batch marks it done in the same transaction. Only the entity table is written: no version,
 * `updated_at`, audit record or version state changes, so history keeps the shape it was written in.
 */
import { sql } from 'kysely';
import { defaultValue, isDefaultGenerator } from '../../entity-document/default-value.ts';
import { MIGRATION_BACKFILL_BATCH } from '../../limits.ts';
import type { EntityStorageModel, StorageField } from '../types.ts';
import { MIGRATIONS_TABLE } from './columns.ts';
import { fieldKind, type SqlDb, type SqlDialect, type SqlTx } from './sql-dialect.ts';

const PREFIX = 'backfill:';
const PENDING = 'pending';

/** The bookkeeping name of a backfill. */
const markerName = (table: string, column: string) => `${PREFIX}${table}.${column}`;

/** Records (inside the migration's transaction) that `field` of `table` is to be backfilled. */
export async function markBackfill(tx: SqlTx, table: string, field: StorageField): Promise<void> {
  await sql`INSERT INTO ${sql.table(MIGRATIONS_TABLE)} (name, checksum, applied_at)
    VALUES (${markerName(table, field.name)}, ${PENDING}, ${new Date().toISOString()})
    ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = excluded.applied_at`.execute(tx);
}

/** The statement a dry run prints for a backfill (one batch). */
export function backfillSummary(field: StorageField): string {
  const value = isDefaultGenerator(field.default) ? `a ${field.default.$generate} per row` : JSON.stringify(field.default);
  return `backfill column ${field.name} with its default (${value}) in batches of ${MIGRATION_BACKFILL_BATCH}, after the migration commits`;
}

/** Fills one batch of rows after `after` (by id); answers the last id filled and how many rows it read. */
async function fillBatch(tx: SqlTx, dialect: SqlDialect, table: string, field: StorageField, after: string): Promise<{ last: string; read: number }> {
  const t = sql.table(table);
  const column = sql.ref(field.name);
  const { rows } = await sql<{
    id: string;
  }>`SELECT id FROM ${t} WHERE id > ${after} AND ${column} IS NULL ORDER BY id LIMIT ${MIGRATION_BACKFILL_BATCH}`.execute(tx);
  if (rows.length === 0) return { last: after, read: 0 };
  const kind = fieldKind(field);
  const encode = () => dialect.encode(kind, defaultValue(field.default ?? null));
  // `IS NULL` again in the UPDATE: a write or a concurrent backfill that got there first wins.
  if (isDefaultGenerator(field.default)) {
    for (const { id } of rows) await sql`UPDATE ${t} SET ${column} = ${encode()} WHERE id = ${id} AND ${column} IS NULL`.execute(tx);
  } else {
    const ids = sql.join(rows.map(({ id }) => sql`${id}`));
    await sql`UPDATE ${t} SET ${column} = ${encode()} WHERE id IN (${ids}) AND ${column} IS NULL`.execute(tx);
  }
  return { last: rows[rows.length - 1]!.id, read: rows.length };
}

/** One pending backfill, found in the bookkeeping table. */
interface PendingBackfill {
  model: EntityStorageModel;
  field: StorageField;
  marker: string;
}

async function pendingBackfills(db: SqlDb, models: readonly EntityStorageModel[]): Promise<PendingBackfill[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.table(MIGRATIONS_TABLE)} WHERE checksum = ${PENDING}`.execute(db);
  const pending: PendingBackfill[] = [];
  for (const { name } of rows) {
    if (!name.startsWith(PREFIX)) continue;
    for (const model of models) {
      // A field whose default was removed since stays pending: the judge refuses its empty rows.
      const field = model.fields.find((candidate) => name === markerName(model.table, candidate.name) && candidate.default !== undefined);
      if (field) pending.push({ model, field, marker: name });
    }
  }
  return pending;
}

/**
 * Runs every pending backfill of `models` to its end, a batch per transaction; answers the rows
 * filled per `table.column`. Safe from several processes at once (a row is filled once).
 */
export async function runBackfills(db: SqlDb, dialect: SqlDialect, models: readonly EntityStorageModel[]): Promise<Map<string, number>> {
  const filled = new Map<string, number>();
  for (const { model, field, marker } of await pendingBackfills(db, models)) {
    let after = '';
    let total = 0;
    for (;;) {
      const batch = await dialect.transaction(db, async (tx) => {
        const result = await fillBatch(tx, dialect, model.table, field, after);
        if (result.read < MIGRATION_BACKFILL_BATCH)
          await sql`UPDATE ${sql.table(MIGRATIONS_TABLE)} SET checksum = ${'done'}, applied_at = ${new Date().toISOString()} WHERE name = ${marker}`.execute(
            tx,
          );
        return result;
      });
      total += batch.read;
      after = batch.last;
      if (batch.read < MIGRATION_BACKFILL_BATCH) break;
    }
    filled.set(`${model.table}.${field.name}`, total);
  }
  return filled;
}
