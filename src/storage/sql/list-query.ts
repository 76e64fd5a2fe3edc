/**
 * A {@link ListQuery} compiled to SQL: scope, filters, search and sort become one WHERE and one
 * ORDER BY with bound values only. Column names are allow-listed against the model (business
 * fields plus listable base columns); an unknown name is a programming error of the caller and
 * throws rather than reaching SQL.
 */
import { sql, type RawBuilder } from 'kysely';
import { CellgateError } from '../../errors.ts';
import { EXACT_COUNT_THRESHOLD } from '../../limits.ts';
import type { CountMethod, EntityStorageModel, ListFilter, ListQuery, RecordScope } from '../types.ts';
import { entityColumnKind } from './columns.ts';
import { LISTABLE_BASE_COLUMNS } from './identifiers.ts';
import type { ColumnKind, SqlDb, SqlDialect } from './sql-dialect.ts';

type Sql = RawBuilder<unknown>;

/** `column = value`, or `column IS NULL` for a null value (so the index still serves equality). */
function equalsOrNull(column: string, value: unknown): Sql {
  return value === null ? sql`${sql.ref(column)} IS NULL` : sql`${sql.ref(column)} = ${value}`;
}

/** The exact-scope condition of a record: same tenant, workspace (or none) and cell (or none). */
export function scopeCondition(scope: RecordScope): Sql {
  return sql`${sql.ref('tenant_id')} = ${scope.tenantId} AND ${equalsOrNull('workspace_id', scope.workspaceId)} AND ${equalsOrNull('cell_id', scope.cellId)}`;
}

/** LIKE pattern matching `term` literally, with `\` as the escape character. */
export function likePattern(term: string, prefixOnly: boolean): string {
  const escaped = term.replace(/[\\%_]/g, (char) => `\\${char}`);
  return prefixOnly ? `${escaped}%` : `%${escaped}%`;
}

function listableKind(model: EntityStorageModel, name: string): ColumnKind {
  const isField = model.fields.some((field) => field.name === name);
  const kind = isField || LISTABLE_BASE_COLUMNS.has(name) ? entityColumnKind(model, name) : undefined;
  if (!kind) throw new CellgateError('VALIDATION_ERROR', `"${name}" cannot be used to filter or sort this collection.`);
  return kind;
}

function textMatch(dialect: SqlDialect, column: Sql, kind: ColumnKind, term: unknown, prefixOnly: boolean): Sql {
  const pattern = likePattern(String(term), prefixOnly);
  return sql`${dialect.fold(dialect.asText(column, kind))} LIKE ${dialect.fold(sql`${pattern}`)} ESCAPE '\\'`;
}

function filterCondition(dialect: SqlDialect, model: EntityStorageModel, filter: ListFilter): Sql {
  const kind = listableKind(model, filter.field);
  const column = sql.ref(filter.field);
  switch (filter.operator) {
    case 'equals':
      return filter.value === null ? sql`${column} IS NULL` : sql`${column} = ${dialect.encode(kind, filter.value)}`;
    case 'in': {
      const values = Array.isArray(filter.value) ? filter.value : [filter.value];
      if (values.length === 0) return sql`1 = 0`;
      return sql`${column} IN (${sql.join(values.map((item) => sql`${dialect.encode(kind, item)}`))})`;
    }
    case 'contains':
      return textMatch(dialect, column, kind, filter.value, false);
    case 'startsWith':
      return textMatch(dialect, column, kind, filter.value, true);
    case 'before':
    case 'lt':
      return sql`${column} < ${dialect.encode(kind, filter.value)}`;
    case 'after':
    case 'gt':
      return sql`${column} > ${dialect.encode(kind, filter.value)}`;
    case 'between': {
      const [low, high] = Array.isArray(filter.value) ? filter.value : [];
      return sql`${column} >= ${dialect.encode(kind, low)} AND ${column} <= ${dialect.encode(kind, high)}`;
    }
  }
}

/** WHERE condition of a list: scope, deletion, filters (AND) and search (OR over its fields). */
export function listCondition(dialect: SqlDialect, model: EntityStorageModel, query: ListQuery): Sql {
  const parts: Sql[] = [scopeCondition(query.scope)];
  if (!query.includeDeleted) parts.push(sql`${sql.ref('deleted_at')} IS NULL`);
  for (const filter of query.filters) parts.push(filterCondition(dialect, model, filter));
  const search = query.search;
  if (search && search.fields.length > 0) {
    const matches = search.fields.map((field) => textMatch(dialect, sql.ref(field), listableKind(model, field), search.term, false));
    parts.push(sql`(${sql.join(matches, sql` OR `)})`);
  }
  return sql.join(parts, sql` AND `);
}

/**
 * ORDER BY of a list: the sort column, then id ascending. NULLs sort as the smallest value (first
 * ascending, last descending) in both databases, as the memory driver does; the indexes are built
 * `NULLS FIRST` so PostgreSQL reads them forwards for asc and backwards for desc.
 */
export function listOrder(model: EntityStorageModel, query: ListQuery): Sql {
  listableKind(model, query.sort.field);
  const desc = query.sort.direction === 'desc';
  const direction = sql.raw(desc ? 'DESC NULLS LAST' : 'ASC NULLS FIRST');
  if (query.sort.field === 'id') return sql`${sql.ref('id')} ${direction}`;
  return sql`${sql.ref(query.sort.field)} ${direction}, ${sql.ref('id')} ASC`;
}

/** A list total and how it was obtained. */
export interface CountedRows {
  total: number;
  count: 'exact' | 'planned';
}

/** `count(*)` of the rows matching `where`. */
async function exactCount(db: SqlDb, table: string, where: Sql): Promise<CountedRows> {
  const { rows } = await sql<{ total: unknown }>`SELECT count(*) AS total FROM ${sql.table(table)} WHERE ${where}`.execute(db);
  return { total: Number(rows[0]?.total ?? 0), count: 'exact' };
}

/**
 * Counts the rows matching `where` by `method`. `planned` and `estimated` count at most
 * {@link EXACT_COUNT_THRESHOLD} + 1 rows of the caller's scope: fewer is the exact total, otherwise
 * the total is that lower bound (`count: 'planned'`). Neither database's estimate is used: SQLite's
 * (the table's largest rowid) and PostgreSQL's planner (table statistics scaled by the table's
 * pages) both grow when another tenant writes, so an estimate would count other tenants' rows
 * (docs/governed.md#counting-list-totals).
 */
export async function countRows(db: SqlDb, table: string, where: Sql, method: CountMethod): Promise<CountedRows> {
  if (method === 'exact') return exactCount(db, table, where);
  const cap = EXACT_COUNT_THRESHOLD + 1;
  const { rows } = await sql<{
    total: unknown;
  }>`SELECT count(*) AS total FROM (SELECT 1 FROM ${sql.table(table)} WHERE ${where} LIMIT ${cap}) AS capped`.execute(db);
  const capped = Number(rows[0]?.total ?? 0);
  return { total: capped, count: capped < cap ? 'exact' : 'planned' };
}
