/**
 * Time travel on SQL (docs/time-travel.md): the state of a record current at an instant, and the
 * states of a collection at an instant. Version states are full snapshots, so a record's state at
 * `t` is one row: the index `(resource_type, id, recorded_at, version)` (migration step
 * `cellgate:time-travel`) finds it with one probe, whatever the length of the history. A
 * collection batch walks the entity table by id (its primary key) and probes that index once per
 * record: the cost grows with the records of the scope, never with their history or the audit log.
 */
import { sql } from 'kysely';
import type { EntityStorageModel, RecordScope, StoredRecord, VersionStateAt } from '../types.ts';
import type { Row } from './codec.ts';
import { VERSION_TABLE } from './columns.ts';
import { scopeCondition } from './list-query.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { mapErrors } from './sql-errors.ts';
import { runCached, type StatementCache } from './statement-cache.ts';

/** The latest state of record `id` recorded at or before `at` (the higher version on a tie). */
const stateAtQuery = (model: EntityStorageModel, id: ReturnType<typeof sql.ref> | string, at: unknown) =>
  sql`SELECT ${sql.ref('v.state')} FROM ${sql.table(VERSION_TABLE)} AS ${sql.id('v')}
    WHERE ${sql.ref('v.resource_type')} = ${model.resourceType} AND ${sql.ref('v.id')} = ${id} AND ${sql.ref('v.recorded_at')} <= ${at}
    ORDER BY ${sql.ref('v.recorded_at')} DESC, ${sql.ref('v.version')} DESC LIMIT 1`;

/** {@link StorageSession.getVersionStateAt} over `db`. */
export function getVersionStateAt(
  dialect: SqlDialect,
  db: SqlDb | SqlTx,
  cache: StatementCache,
  model: EntityStorageModel,
  scope: RecordScope,
  id: string,
  at: string,
): Promise<StoredRecord | null> {
  return mapErrors(dialect, async () => {
    const instant = dialect.encode('timestamp', at);
    // The text depends on nothing but the table: compiled once per driver, like the other hot reads.
    const { rows } = await runCached(db, cache, 'stateAt', () => sql<Row>`${stateAtQuery(model, id, instant)}`, [model.resourceType, id, instant]);
    const state = rows[0] ? (dialect.decode('json', rows[0].state) as StoredRecord) : null;
    // Records never change scope; the check keeps a state of another tenant unreadable all the same.
    return state !== null && state.tenantId === scope.tenantId && state.workspaceId === scope.workspaceId && state.cellId === scope.cellId ? state : null;
  });
}

/** {@link StorageSession.listVersionStatesAt} over `db`: one statement, one index probe per record of the batch. */
export function listVersionStatesAt(
  dialect: SqlDialect,
  db: SqlDb | SqlTx,
  model: EntityStorageModel,
  scope: RecordScope,
  at: string,
  after: string | null,
  limit: number,
): Promise<VersionStateAt[]> {
  return mapErrors(dialect, async () => {
    const instant = dialect.encode('timestamp', at);
    const from = after === null ? sql`` : sql` AND ${sql.ref('id')} > ${after}`;
    // The state is a correlated scalar subquery (SQLite has no LATERAL): NULL where retention
    // removed the state at `at`, which the core answers with 410.
    const { rows } = await sql<Row>`SELECT ${sql.ref('id')}, (${stateAtQuery(model, sql.ref(`${model.table}.id`), instant)}) AS ${sql.id('state')}
        FROM ${sql.table(model.table)} WHERE ${scopeCondition(scope)} AND ${sql.ref('created_at')} <= ${instant}${from}
        ORDER BY ${sql.ref('id')} LIMIT ${limit}`.execute(db);
    return rows.map((row) => ({ id: row.id as string, state: row.state === null ? null : (dialect.decode('json', row.state) as StoredRecord) }));
  });
}
