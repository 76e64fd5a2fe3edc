/**
 * Pages bounded by size as well as by count, read in the database: the sizes of a page's rows
 * are summed in SQL over at most `limit` rows, and only the rows that fit are fetched whole. So a
 * page of large rows (events near a record's size, audit records with their diff and snapshot)
 * never brings more than about `maxLength` characters into the process, whatever `limit` says.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Row } from './codec.ts';

/** One size-bounded page read: the table (ordered by its `seq`), which rows, and the bounds. */
export interface SizedPageQuery {
  table: string;
  /** Columns of the whole row to fetch, qualified with the alias `t` (`t.*`). */
  columns: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
  direction: 'asc' | 'desc';
  limit: number;
  /** A row's size in characters, over unqualified columns (its JSON text, plus what else it carries). */
  size: RawBuilder<unknown>;
  maxLength: number;
}

/**
 * The first rows of `limit` in `seq` order whose running size stays within `maxLength` (always
 * the first row). Each row also carries `window_rows`, how many rows matched within `limit`: more
 * than the rows returned means the page was cut by size.
 */
export function sizedPage(query: SizedPageQuery): RawBuilder<Row> {
  const table = sql.table(query.table);
  const order = sql`${sql.id('seq')} ${sql.raw(query.direction === 'asc' ? 'ASC' : 'DESC')}`;
  return sql<Row>`SELECT ${query.columns}, sized.${sql.id('window_rows')} FROM (
      SELECT ${sql.id('seq')}, sum(${sql.id('size')}) OVER (ORDER BY ${order}) AS ${sql.id('running')},
        row_number() OVER (ORDER BY ${order}) AS ${sql.id('n')}, count(*) OVER () AS ${sql.id('window_rows')} FROM (
        SELECT ${sql.ref('seq')}, ${query.size} AS ${sql.id('size')} FROM ${table} WHERE ${query.where} ORDER BY ${order} LIMIT ${query.limit}
      ) AS page
    ) AS sized JOIN ${table} t ON t.${sql.id('seq')} = sized.${sql.id('seq')}
    WHERE sized.${sql.id('n')} = 1 OR sized.${sql.id('running')} <= ${query.maxLength} ORDER BY t.${order}`;
}

/** Characters of a JSON column's text (PostgreSQL stores `jsonb`, printed for the count), 0 for NULL. */
export function jsonLength(dialect: { name: string }, column: string): RawBuilder<unknown> {
  const text = dialect.name === 'postgres' ? sql`${sql.ref(column)}::text` : sql.ref(column);
  return sql`coalesce(length(${text}), 0)`;
}
