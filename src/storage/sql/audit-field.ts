/**
 * `AuditQuery.field` as one SQL condition (docs/time-travel.md#who-changed-a-field): the audit
 * record's diff holds an operation whose path is the field or lies below it, other than an `add`
 * of null (a create adds every field, the ones it leaves unset as null). Evaluated in the WHERE of
 * the page's query, so records that do not match are dropped before paging. A redacted operation
 * has no `value` (three-valued logic would make its test unknown, hence the `coalesce`).
 */
import { sql, type RawBuilder } from 'kysely';
import type { SqlDialect } from './sql-dialect.ts';

/** The condition of `field` (a JSON Pointer already checked by the core) on the `diff` column. */
export function fieldChangedCondition(dialect: SqlDialect, field: string): RawBuilder<unknown> {
  const below = `${field}/`;
  if (dialect.name === 'postgres') {
    const path = sql`${sql.ref('e.value')}->>'path'`;
    return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${sql.ref('diff')}) = 'array' THEN ${sql.ref('diff')} ELSE '[]'::jsonb END) AS ${sql.id('e')}(${sql.id('value')})
      WHERE (${path} = ${field} OR left(${path}, ${below.length}) = ${below})
      AND NOT (${sql.ref('e.value')}->>'op' = 'add' AND coalesce(jsonb_typeof(${sql.ref('e.value')}->'value'), '') = 'null'))`;
  }
  const path = sql`json_extract(${sql.ref('e.value')}, '$.path')`;
  return sql`EXISTS (SELECT 1 FROM json_each(CASE WHEN json_type(${sql.ref('diff')}) = 'array' THEN ${sql.ref('diff')} ELSE '[]' END) AS ${sql.id('e')}
    WHERE (${path} = ${field} OR substr(${path}, 1, ${below.length}) = ${below})
    AND NOT (json_extract(${sql.ref('e.value')}, '$.op') = 'add' AND coalesce(json_type(${sql.ref('e.value')}, '$.value'), '') = 'null'))`;
}
