/**
 * A list page read in batches bounded by size (docs/decisions/B25.md). A page whose stored sizes
 * (summed in the database) fit in one batch is read whole by one query. Otherwise the next query
 * fixes the page: the ids of its rows in list order, each with its stored size, and the whole rows
 * of the first batch joined in (the leading rows whose running size stays within `maxLength`,
 * always the first). The other rows are read by id, one batch per query, only when the caller
 * pulls them. So the process holds about one batch whatever `pageSize` × record size is, and a
 * write between two batches cannot shift the page: its ids were fixed by that query.
 */
import { sql, type RawBuilder } from 'kysely';
import type { EntityStorageModel, ListQuery, StoredRecord } from '../types.ts';
import { decodeRecord, type Row } from './codec.ts';
import { entityColumnKind } from './columns.ts';
import { listOrder, scopeCondition } from './list-query.ts';
import type { ColumnKind, SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { mapErrors } from './sql-errors.ts';

type Sql = RawBuilder<unknown>;

/** Characters counted per row for its base columns (ids, actors, times, version): all bounded. */
const ROW_ALLOWANCE = 1024;
/** Characters counted per column of a bounded kind (numbers, booleans, uuids, times). */
const BOUNDED_COLUMN_ALLOWANCE = 32;
/** Kinds whose stored text can be as long as a record: their length is measured. */
const MEASURED_KINDS: ReadonlySet<ColumnKind> = new Set(['text', 'json', 'string_array']);

/** A row's size in characters: the stored text of its text and JSON fields plus fixed allowances. */
function rowSize(dialect: SqlDialect, model: EntityStorageModel): Sql {
  let allowance = ROW_ALLOWANCE;
  const measured: Sql[] = [];
  for (const field of model.fields) {
    const kind = entityColumnKind(model, field.name)!;
    if (MEASURED_KINDS.has(kind)) measured.push(sql`coalesce(length(${dialect.asText(sql.ref(field.name), kind)}), 0)`);
    else allowance += BOUNDED_COLUMN_ALLOWANCE;
  }
  return sql.join([sql.lit(allowance), ...measured], sql` + `);
}

/** A row of the first query: the page's id and size, and the whole row when it is in the first batch. */
interface PageRow extends Row {
  _page_id: string;
  _page_size: unknown;
}

/** The ids of a page's rows after its first batch, with their sizes, in page order. */
interface Pending {
  id: string;
  size: number;
}

/**
 * The first query: the page (`where`, list order, `limit` and `offset`) as ids and sizes, with the
 * whole rows of its first batch. Names of the helper columns start with `_`, which no field name
 * does (field keys are snake_case from a letter).
 */
function firstQuery(dialect: SqlDialect, model: EntityStorageModel, query: ListQuery, where: Sql, maxLength: number): RawBuilder<PageRow> {
  const table = sql.table(model.table);
  const order = listOrder(model, query);
  const sortColumn = query.sort.field === 'id' ? sql`` : sql`, ${sql.ref(query.sort.field)}`;
  return sql<PageRow>`SELECT sized.${sql.id('_page_id')}, sized.${sql.id('_page_size')}, t.* FROM (
      SELECT ${sql.ref('id')} AS ${sql.id('_page_id')}, ${sql.id('_page_size')},
        row_number() OVER (ORDER BY ${order}) AS ${sql.id('_page_n')},
        sum(${sql.id('_page_size')}) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) AS ${sql.id('_page_running')} FROM (
        SELECT ${sql.ref('id')}${sortColumn}, ${rowSize(dialect, model)} AS ${sql.id('_page_size')} FROM ${table}
        WHERE ${where} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.offset}
      ) AS page
    ) AS sized LEFT JOIN ${table} t ON t.${sql.id('id')} = sized.${sql.id('_page_id')}
      AND (sized.${sql.id('_page_n')} = 1 OR sized.${sql.id('_page_running')} <= ${maxLength})
    ORDER BY sized.${sql.id('_page_n')}`;
}

/**
 * The whole page in one query, provided its rows' sizes sum within `maxLength` (summed in the
 * database first, by an uncorrelated subquery run once); no row otherwise. The common case, a
 * page that fits, costs one plain page read plus a scan of the page's sizes.
 */
function wholeIfFits(dialect: SqlDialect, model: EntityStorageModel, query: ListQuery, where: Sql, maxLength: number): RawBuilder<Row> {
  const table = sql.table(model.table);
  const order = listOrder(model, query);
  return sql<Row>`SELECT * FROM ${table} WHERE ${where} AND (
      SELECT coalesce(sum(${sql.id('_page_size')}), 0) FROM (
        SELECT ${rowSize(dialect, model)} AS ${sql.id('_page_size')} FROM ${table}
        WHERE ${where} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.offset}
      ) AS page
    ) <= ${maxLength}
    ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.offset}`;
}

/** Cuts the pending ids into consecutive batches of at most `maxLength` (at least one id each). */
export function batchesOf<T extends { size: number }>(items: readonly T[], maxLength: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let length = 0;
  for (const item of items) {
    if (current.length > 0 && length + item.size > maxLength) {
      batches.push(current);
      current = [];
      length = 0;
    }
    current.push(item);
    length += item.size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Reads the rest of the page, one batch per query when pulled: the rows of the batch's ids within
 * the page's scope, served in page order. A row no longer stored (purged or erased between two
 * batches) is left out; any other record is served as its batch reads it.
 */
async function* restOfPage(
  dialect: SqlDialect,
  db: SqlDb | SqlTx,
  model: EntityStorageModel,
  query: ListQuery,
  pending: readonly Pending[],
  maxLength: number,
): AsyncGenerator<StoredRecord[]> {
  for (const batch of batchesOf(pending, maxLength)) {
    const ids = batch.map((item) => item.id);
    const rows = await mapErrors(dialect, async () => {
      const result = await sql<Row>`SELECT * FROM ${sql.table(model.table)}
        WHERE ${sql.ref('id')} IN (${sql.join(ids)}) AND ${scopeCondition(query.scope)}`.execute(db);
      return result.rows;
    });
    const byId = new Map(rows.map((row) => [row.id as string, row]));
    const records: StoredRecord[] = [];
    for (const id of ids) {
      const row = byId.get(id);
      if (row !== undefined) records.push(decodeRecord(dialect, model, row));
    }
    if (records.length > 0) yield records;
  }
}

/**
 * The page of `query` read in batches of at most `maxLength` characters: the records of the first
 * batch, and the rest (absent when the page fit in one batch).
 */
export async function readSizedList(
  dialect: SqlDialect,
  db: SqlDb | SqlTx,
  model: EntityStorageModel,
  query: ListQuery,
  where: Sql,
  maxLength: number,
): Promise<{ records: StoredRecord[]; rest?: AsyncIterable<StoredRecord[]> }> {
  const whole = await wholeIfFits(dialect, model, query, where, maxLength).execute(db);
  if (whole.rows.length > 0) return { records: whole.rows.map((row) => decodeRecord(dialect, model, row)) };
  // Past the bound (or an empty page): the page's ids and sizes, with the rows of its first batch.
  const { rows } = await firstQuery(dialect, model, query, where, maxLength).execute(db);
  const records: StoredRecord[] = [];
  const pending: Pending[] = [];
  for (const row of rows) {
    // The joined columns are all NULL for a row past the first batch; `id` is never NULL otherwise.
    if (row.id !== null && row.id !== undefined && pending.length === 0) records.push(decodeRecord(dialect, model, row));
    else pending.push({ id: row._page_id, size: Number(row._page_size) });
  }
  return pending.length === 0 ? { records } : { records, rest: restOfPage(dialect, db, model, query, pending, maxLength) };
}
