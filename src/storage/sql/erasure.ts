/**
 * The erasure operations of the SQL drivers (docs/erasure.md): keyset reads of one record's
 * version states and events, and the statements that rewrite them and its audit records. They run
 * only in a maintenance transaction: the audit table's append-only guard refuses the audit UPDATE
 * anywhere else.
 */
import { sql } from 'kysely';
import type { ErasureOperations, StoredEvent, StoredRecord } from '../types.ts';
import { AUDIT_TABLE, EVENTS_TABLE, VERSION_TABLE } from './columns.ts';
import { afterCursor, decodeEvent, EVENT_ROW, eventResourceId } from './events.ts';
import type { Row } from './codec.ts';
import { scopeCondition } from './list-query.ts';
import type { SqlDialect, SqlTx } from './sql-dialect.ts';
import { mapErrors } from './sql-errors.ts';
import { sealLeafOpenings } from './log-store.ts';

/** The erasure operations over the maintenance transaction `tx`. */
export function createSqlErasureOperations(dialect: SqlDialect, tx: SqlTx): ErasureOperations {
  const run = <T>(call: () => Promise<T>) => mapErrors(dialect, call);
  const json = (value: unknown) => dialect.encode('json', value);

  return {
    listVersionStates: (model, scope, id, range) =>
      run(async () => {
        // The primary key (resource_type, id, version) serves the range: one index scan per batch.
        const { rows } = await sql<Row>`SELECT ${sql.ref('state')} FROM ${sql.table(VERSION_TABLE)}
          WHERE ${sql.ref('resource_type')} = ${model.resourceType} AND ${sql.ref('id')} = ${id}
          AND ${sql.ref('version')} > ${range.after} AND ${sql.ref('version')} <= ${range.through} AND ${scopeCondition(scope)}
          ORDER BY ${sql.ref('version')} LIMIT ${Math.max(1, Math.floor(range.limit))}`.execute(tx);
        return rows.map((row) => dialect.decode('json', row.state) as StoredRecord);
      }),

    replaceVersionState: (model, state) =>
      run(async () => {
        await sql`UPDATE ${sql.table(VERSION_TABLE)} SET ${sql.ref('state')} = ${json(state)}
          WHERE ${sql.ref('resource_type')} = ${model.resourceType} AND ${sql.ref('id')} = ${state.id} AND ${sql.ref('version')} = ${state.version}`.execute(
          tx,
        );
      }),

    replaceAuditChange: (tenantId, auditId, change) =>
      run(async () => {
        await sealLeafOpenings(dialect, tx, tenantId, auditId, change);
        await sql`UPDATE ${sql.table(AUDIT_TABLE)} SET ${sql.ref('diff')} = ${json(change.diff)}, ${sql.ref('snapshot')} = ${json(change.snapshot)}
          WHERE ${sql.ref('id')} = ${auditId} AND ${sql.ref('tenant_id')} = ${tenantId}`.execute(tx);
      }),

    listRecordEvents: (query) =>
      run(async (): Promise<StoredEvent[]> => {
        // The record index (tenant, resource type, resource id, seq) finds exactly these rows.
        const { rows } = await sql<Row>`SELECT ${EVENT_ROW} FROM ${sql.table(EVENTS_TABLE)}
          WHERE ${sql.ref('tenant_id')} = ${query.tenantId} AND ${sql.ref('resource_type')} = ${query.resourceType}
          AND ${eventResourceId(dialect)} = ${query.resourceId}${afterCursor(query.tenantId, query.after)}
          ORDER BY ${sql.ref('seq')} LIMIT ${Math.max(1, Math.floor(query.limit))}`.execute(tx);
        return rows.map((row) => decodeEvent(dialect, row));
      }),

    replaceEvent: (event) =>
      run(async () => {
        const { cursor: _cursor, ...body } = event as StoredEvent;
        await sql`UPDATE ${sql.table(EVENTS_TABLE)} SET ${sql.ref('payload')} = ${json(body)}
          WHERE ${sql.ref('id')} = ${event.id} AND ${sql.ref('tenant_id')} = ${event.tenantId}`.execute(tx);
      }),
  };
}
