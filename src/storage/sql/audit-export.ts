/**
 * The SQL audit export: a tenant's audit records in a time range, oldest first, read in keyset
 * pages on (`occurred_at`, `seq`). Each page is one statement of its own outside any transaction,
 * starting just after the last row of the previous page, so memory is one page whatever the range
 * and no lock is held between pages. The `cellgate:audit-export` migration step adds the index
 * (`tenant_id`, `occurred_at`, `seq`) that lets the database start at `from` and read in order
 * instead of scanning the tenant's history (without it the query still answers, slower).
 */
import { sql, type RawBuilder } from 'kysely';
import { exportPageSize } from '../audit-export-page.ts';
import type { AuditExportQuery, AuditRecord } from '../types.ts';
import { decodeAudit, type Row } from './codec.ts';
import { AUDIT_TABLE } from './columns.ts';
import { reachCondition } from './history-reach.ts';
import type { SqlDb, SqlDialect } from './sql-dialect.ts';
import { mapErrors } from './sql-errors.ts';

/** The last row of a page: where the next one starts. */
interface Keyset {
  at: unknown;
  seq: unknown;
}

/** One page of the export after `keyset` (from the range start when absent). */
async function readPage(dialect: SqlDialect, db: SqlDb, query: AuditExportQuery, keyset: Keyset | undefined, size: number): Promise<Row[]> {
  const at = sql.ref('occurred_at');
  const seq = sql.ref('seq');
  const parts: RawBuilder<unknown>[] = [sql`${sql.ref('tenant_id')} = ${query.tenantId}`, sql`${at} < ${dialect.encode('timestamp', query.to)}`];
  // The row comparison is the whole keyset: both databases read it as one range of the index.
  parts.push(keyset === undefined ? sql`${at} >= ${dialect.encode('timestamp', query.from)}` : sql`(${at}, ${seq}) > (${keyset.at}, ${keyset.seq})`);
  if (query.resourceType !== undefined) parts.push(sql`${sql.ref('resource_type')} = ${query.resourceType}`);
  if (query.workspaceIds !== undefined)
    parts.push(query.workspaceIds.length === 0 ? sql`1 = 0` : sql`${sql.ref('workspace_id')} IN (${sql.join(query.workspaceIds)})`);
  if (query.reach !== undefined) parts.push(reachCondition(query.reach));
  const { rows } = await sql<Row>`SELECT * FROM ${sql.table(AUDIT_TABLE)} WHERE ${sql.join(parts, sql` AND `)}
    ORDER BY ${at}, ${seq} LIMIT ${size}`.execute(db);
  return rows;
}

/**
 * {@link StorageDriver.exportAudit} over `db`. `retry` wraps each page read (the driver's retry
 * while SQLite reports another process's lock busy).
 */
export async function* exportAudit(
  dialect: SqlDialect,
  db: SqlDb,
  query: AuditExportQuery,
  retry: <T>(read: () => Promise<T>) => Promise<T> = (read) => read(),
): AsyncGenerator<AuditRecord> {
  const size = exportPageSize(query);
  let keyset: Keyset | undefined;
  for (;;) {
    const after = keyset;
    const rows = await retry(() => mapErrors(dialect, () => readPage(dialect, db, query, after, size)));
    let lastAt: string | undefined;
    for (const row of rows) {
      const record = decodeAudit(dialect, row);
      lastAt = record.occurredAt;
      yield record;
    }
    if (lastAt === undefined || rows.length < size) return;
    // cellgate writes `occurredAt` with millisecond precision, so its ISO text is the exact column value.
    keyset = { at: dialect.encode('timestamp', lastAt), seq: rows[rows.length - 1]!.seq };
  }
}
