/**
 * The history-removing operations of the SQL drivers (retention, the purge of soft-deleted
 * records, outbox trimming), run only in a maintenance transaction: the audit table's guard lets
 * their DELETEs through only there. Every call selects at most `limit` rows through an index and
 * removes exactly those, so a job loops in bounded batches.
 */
import { sql, type RawBuilder } from 'kysely';
import { encodeEventCursor } from '../event-cursor.ts';
import type { EntityStorageModel, OutboxTrim, RemovedRange, RetentionOperations, StoredRecord } from '../types.ts';
import { AUDIT_TABLE, DELIVERY_TABLE, EVENTS_TABLE, VERSION_TABLE } from './columns.ts';
import { decodeRecord, type Row } from './codec.ts';
import { afterCursor } from './events.ts';
import type { SqlDialect, SqlTx } from './sql-dialect.ts';
import { mapErrors } from './sql-errors.ts';

const affected = (result: { numAffectedRows?: bigint }): number => Number(result.numAffectedRows ?? 0n);

/** The range of removed rows from their times, oldest first. */
function rangeOf(dialect: SqlDialect, times: unknown[]): RemovedRange {
  if (times.length === 0) return { count: 0, oldest: null, newest: null };
  const iso = times.map((time) => dialect.decode('timestamp', time) as string).sort();
  return { count: iso.length, oldest: iso[0]!, newest: iso[iso.length - 1]! };
}

/** Builds the retention operations over the maintenance transaction `tx`. */
export function createSqlRetention(dialect: SqlDialect, tx: SqlTx): RetentionOperations {
  const run = <T>(call: () => Promise<T>) => mapErrors(dialect, call);
  const at = (iso: string) => dialect.encode('timestamp', iso);
  const occurredAt: RawBuilder<unknown> =
    dialect.name === 'postgres' ? sql`(${sql.ref('payload')}->>'occurredAt')` : sql`json_extract(${sql.ref('payload')}, '$.occurredAt')`;

  return {
    historyTenants: (after, limit) =>
      run(async () => {
        // A loose index scan: one index probe per tenant (the next id above the last), however
        // many audit records each tenant has; DISTINCT would read them all.
        const audit = sql.table(AUDIT_TABLE);
        const tenant = sql.ref('tenant_id');
        const { rows } = await sql<{ tenant_id: string | null }>`WITH RECURSIVE walk (tenant_id, n) AS (
            SELECT (SELECT min(${tenant}) FROM ${audit}${after === null ? sql`` : sql` WHERE ${tenant} > ${after}`}), 1
            UNION ALL
            SELECT (SELECT min(${tenant}) FROM ${audit} WHERE ${tenant} > walk.tenant_id), walk.n + 1 FROM walk WHERE walk.tenant_id IS NOT NULL AND walk.n < ${limit}
          ) SELECT tenant_id FROM walk WHERE tenant_id IS NOT NULL`.execute(tx);
        return rows.map((row) => row.tenant_id!);
      }),

    removeAuditBefore: (tenantId, before, limit) =>
      run(async () => {
        const { rows } = await sql<Row>`SELECT ${sql.ref('seq')}, ${sql.ref('occurred_at')} FROM ${sql.table(AUDIT_TABLE)}
          WHERE ${sql.ref('tenant_id')} = ${tenantId} AND ${sql.ref('occurred_at')} < ${at(before)}
          ORDER BY ${sql.ref('occurred_at')}, ${sql.ref('seq')} LIMIT ${limit}`.execute(tx);
        if (rows.length > 0) await sql`DELETE FROM ${sql.table(AUDIT_TABLE)} WHERE ${sql.ref('seq')} IN (${sql.join(rows.map((row) => row.seq))})`.execute(tx);
        return rangeOf(
          dialect,
          rows.map((row) => row.occurred_at),
        );
      }),

    removeVersionStatesBefore: (model, tenantId, before, limit) =>
      run(async () => {
        // A state stays while its record needs it: the current version, and for a deleted record
        // the version before the delete (a restore rolls back to it).
        const { rows } = await sql<Row>`SELECT v.${sql.ref('id')}, v.${sql.ref('version')}, v.${sql.ref('recorded_at')} FROM ${sql.table(VERSION_TABLE)} v
          LEFT JOIN ${sql.table(model.table)} r ON r.${sql.ref('id')} = v.${sql.ref('id')}
          WHERE v.${sql.ref('tenant_id')} = ${tenantId} AND v.${sql.ref('resource_type')} = ${model.resourceType} AND v.${sql.ref('recorded_at')} < ${at(before)}
            AND (r.${sql.ref('id')} IS NULL OR v.${sql.ref('version')} < r.${sql.ref('version')} - (CASE WHEN r.${sql.ref('deleted_at')} IS NULL THEN 0 ELSE 1 END))
          ORDER BY v.${sql.ref('recorded_at')} LIMIT ${limit}`.execute(tx);
        if (rows.length > 0) {
          await sql`DELETE FROM ${sql.table(VERSION_TABLE)} WHERE ${sql.ref('resource_type')} = ${model.resourceType}
            AND (${sql.ref('id')}, ${sql.ref('version')}) IN (${sql.join(rows.map((row) => sql`(${row.id}, ${row.version})`))})`.execute(tx);
        }
        return rangeOf(
          dialect,
          rows.map((row) => row.recorded_at),
        );
      }),

    trimOutbox: (tenantId, before, limit, after) =>
      run(async (): Promise<OutboxTrim> => {
        const { rows } =
          await sql<Row>`SELECT ${sql.ref('seq')}, ${sql.ref('tenant_seq')}, ${sql.ref('id')}, ${occurredAt} AS occurred_at FROM ${sql.table(EVENTS_TABLE)}
          WHERE ${sql.ref('tenant_id')} = ${tenantId}${afterCursor(tenantId, after ?? undefined)} ORDER BY ${sql.ref('seq')} LIMIT ${limit}`.execute(tx);
        const stop = rows.findIndex((row) => String(row.occurred_at) >= before);
        const walked = stop === -1 ? rows : rows.slice(0, stop);
        // Fanned out or not: retention bounds the outbox even where no webhook dispatcher runs.
        const candidates = walked.map((row) => String(row.id));
        let deletable: string[] = [];
        if (candidates.length > 0) {
          const blocked = await sql<{ event_id: string }>`SELECT DISTINCT ${sql.ref('event_id')} FROM ${sql.table(DELIVERY_TABLE)}
            WHERE ${sql.ref('event_id')} IN (${sql.join(candidates)}) AND ${sql.ref('state')} <> 'delivered'`.execute(tx);
          const kept = new Set(blocked.rows.map((row) => row.event_id));
          deletable = candidates.filter((id) => !kept.has(id));
        }
        let deliveries = 0;
        let events = 0;
        if (deletable.length > 0) {
          deliveries = affected(await sql`DELETE FROM ${sql.table(DELIVERY_TABLE)} WHERE ${sql.ref('event_id')} IN (${sql.join(deletable)})`.execute(tx));
          events = affected(await sql`DELETE FROM ${sql.table(EVENTS_TABLE)} WHERE ${sql.ref('id')} IN (${sql.join(deletable)})`.execute(tx));
        }
        const more = stop === -1 && rows.length === limit;
        return { events, deliveries, next: more ? encodeEventCursor(rows[rows.length - 1]!.tenant_seq as string | number) : null };
      }),

    listDeletedBefore: (model, tenantId, before, limit) =>
      run(async () => {
        const { rows } = await sql<Row>`SELECT * FROM ${sql.table(model.table)}
          WHERE ${sql.ref('tenant_id')} = ${tenantId} AND ${sql.ref('deleted_at')} IS NOT NULL AND ${sql.ref('deleted_at')} < ${at(before)}
          ORDER BY ${sql.ref('deleted_at')}, ${sql.ref('id')} LIMIT ${limit}`.execute(tx);
        return rows.map((row) => decodeRecord(dialect, model, row));
      }),

    removeDeletedRecord: (model: EntityStorageModel, record: StoredRecord) =>
      run(async () => {
        const removed = await sql`DELETE FROM ${sql.table(model.table)} WHERE ${sql.ref('id')} = ${record.id} AND ${sql.ref('tenant_id')} = ${record.tenantId}
          AND ${sql.ref('version')} = ${record.version} AND ${sql.ref('deleted_at')} IS NOT NULL`.execute(tx);
        if (affected(removed) !== 1) return null;
        const states = await sql`DELETE FROM ${sql.table(VERSION_TABLE)} WHERE ${sql.ref('resource_type')} = ${model.resourceType}
          AND ${sql.ref('id')} = ${record.id} AND ${sql.ref('tenant_id')} = ${record.tenantId}`.execute(tx);
        return affected(states);
      }),
  };
}
