/**
 * The {@link StorageSession} over one Kysely handle: the database itself for reads outside a
 * transaction, or a transaction for the core's mutations. Every statement is a `sql` template
 * with checked identifiers and bound values.
 */
import { sql, type RawBuilder } from 'kysely';
import { CellgateError } from '../../errors.ts';
import type {
  AuditPage,
  AuditQuery,
  AuditRecord,
  EntityStorageModel,
  IdempotencyRecord,
  ListQuery,
  ListResult,
  RecordScope,
  StorageSession,
  StoredRecord,
} from '../types.ts';
import { AUDIT_TABLE, IDEMPOTENCY_TABLE, VERSION_COLUMNS, VERSION_TABLE } from './columns.ts';
import { decodeAudit, decodeIdempotency, decodeRecord, encodeAudit, encodeIdempotency, encodeRecord, type EncodedRow, type Row } from './codec.ts';
import { appendEvent } from './events.ts';
import { appendLogLeaf } from './log-store.ts';
import { readSizedList } from './list-batches.ts';
import { countRows, listCondition, listOrder, scopeCondition } from './list-query.ts';
import { reachCondition } from './history-reach.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { jsonLength, sizedPage } from './sized-page.ts';
import { mapErrors } from './sql-errors.ts';
import { runCached, type StatementCache } from './statement-cache.ts';
import { getVersionStateAt, listVersionStatesAt } from './time-travel.ts';
import { fieldChangedCondition } from './audit-field.ts';
import { sqlUpgradeOperations } from './upgrade-store.ts';

const VERSION_COLUMN_NAMES = VERSION_COLUMNS.map((spec) => spec.name);

/** Characters counted per audit record beside its diff and snapshot: ids, times, request data, a reason (at most 1,000), tags. */
const AUDIT_ROW_ALLOWANCE = 2048;

/** What a size-bounded audit page reads: whole rows, each sized by the JSON of its diff and snapshot. */
function auditPageSize(dialect: SqlDialect) {
  const size = sql`${jsonLength(dialect, 'diff')} + ${jsonLength(dialect, 'snapshot')} + ${sql.lit(AUDIT_ROW_ALLOWANCE)}`;
  return { table: AUDIT_TABLE, columns: sql`t.*`, size };
}

function insertStatement(table: string, row: EncodedRow): RawBuilder<unknown> {
  return sql`INSERT INTO ${sql.table(table)} (${sql.join(row.columns.map((c) => sql.ref(c)))}) VALUES (${sql.join(row.values)})`;
}

/** Runs a cached insert statement of `row` into `table`. */
function insertRow(db: SqlDb | SqlTx, cache: StatementCache, key: string, table: string, row: EncodedRow) {
  return runCached(db, cache, key, () => insertStatement(table, row), row.values);
}

/** Which scope values are null: the only thing besides the model that changes a statement's text. */
function scopeShape(scope: RecordScope): string {
  return `${scope.workspaceId === null ? 'n' : 'v'}${scope.cellId === null ? 'n' : 'v'}`;
}

/** Bound values of {@link scopeCondition}, in its order (nulls become `IS NULL`, no value). */
function scopeValues(scope: RecordScope): unknown[] {
  return [scope.tenantId, ...(scope.workspaceId === null ? [] : [scope.workspaceId]), ...(scope.cellId === null ? [] : [scope.cellId])];
}

function affected(result: { numAffectedRows?: bigint }): number {
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * The audit cursor: base64url of the `seq` of the last record of a page. `seq` is assigned at
 * insert; on PostgreSQL two concurrent writes may commit out of `seq` order, so a page read in
 * that instant can miss the later-committing lower `seq` (it shows up on a fresh first page).
 */
export function encodeAuditCursor(seq: string | number | bigint): string {
  return Buffer.from(String(seq), 'utf8').toString('base64url');
}

/** The `seq` a cursor stands for; a cursor that is not one of ours is a 400. */
export function decodeAuditCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!/^[1-9][0-9]{0,18}$/.test(text)) {
    throw new CellgateError('VALIDATION_ERROR', 'The cursor is not valid. Use the nextCursor of a previous page.', {
      details: { fields: [{ path: 'cursor', message: 'not a cursor issued by this service' }] },
    });
  }
  return text;
}

/** Builds the session operations over `db` (a database or a transaction); `cache` is the driver's. */
export function createSqlSession(dialect: SqlDialect, db: SqlDb | SqlTx, cache: StatementCache, withLog = true): StorageSession {
  // Methods, not arrow-valued members: a session is made per transaction, and `keepNames`
  // transforms (tsx) rename every arrow member on each creation (docs/architecture.md, "Performance model").
  return {
    get(model, scope, id) {
      return mapErrors(dialect, async () => {
        const { rows } = await runCached(
          db,
          cache,
          `get:${model.table}:${scopeShape(scope)}`,
          () => sql<Row>`SELECT * FROM ${sql.table(model.table)} WHERE ${sql.ref('id')} = ${id} AND ${scopeCondition(scope)}`,
          [id, ...scopeValues(scope)],
        );
        return rows[0] ? decodeRecord(dialect, model, rows[0]) : null;
      });
    },

    list(model: EntityStorageModel, query: ListQuery) {
      return mapErrors(dialect, async (): Promise<ListResult> => {
        const where = listCondition(dialect, model, query);
        let read: { records: StoredRecord[]; rest?: AsyncIterable<StoredRecord[]> };
        if (query.maxLength === undefined) {
          const page = await sql<Row>`SELECT * FROM ${sql.table(model.table)} WHERE ${where}
          ORDER BY ${listOrder(model, query)} LIMIT ${query.limit} OFFSET ${query.offset}`.execute(db);
          read = { records: page.rows.map((row) => decodeRecord(dialect, model, row)) };
        } else read = await readSizedList(dialect, db, model, query, where, query.maxLength);
        const { total, count } = await countRows(db, model.table, where, query.count ?? 'exact');
        // `count` is reported only to callers that chose a method, so plain results keep their shape.
        return { ...read, total, ...(query.count === undefined ? {} : { count }) };
      });
    },

    lockLive(model, scope, id, mode = 'share') {
      return mapErrors(dialect, async () => {
        const lock = dialect.name === 'postgres' ? (mode === 'share' ? ' FOR SHARE' : ' FOR NO KEY UPDATE') : '';
        const { rows } = await runCached(
          db,
          cache,
          `lock-live:${model.table}:${scopeShape(scope)}:${mode}`,
          () => sql<Row>`SELECT ${sql.ref('id')} FROM ${sql.table(model.table)}
            WHERE ${sql.ref('id')} = ${id} AND ${scopeCondition(scope)} AND ${sql.ref('deleted_at')} IS NULL${sql.raw(lock)}`,
          [id, ...scopeValues(scope)],
        );
        return rows.length > 0;
      });
    },

    listReferrers(model, field, within, id, limit) {
      return mapErrors(dialect, async () => {
        referenceField(model, field);
        const parts = [sql`${sql.ref('tenant_id')} = ${within.tenantId}`, sql`${sql.ref(field)} = ${id}`, sql`${sql.ref('deleted_at')} IS NULL`];
        if (within.workspaceId !== null) parts.push(sql`${sql.ref('workspace_id')} = ${within.workspaceId}`);
        if (within.cellId !== null) parts.push(sql`${sql.ref('cell_id')} = ${within.cellId}`);
        const { rows } = await sql<Row>`SELECT * FROM ${sql.table(model.table)} WHERE ${sql.join(parts, sql` AND `)}
          ORDER BY ${sql.ref('id')} LIMIT ${limit}`.execute(db);
        return rows.map((row) => decodeRecord(dialect, model, row));
      });
    },

    insert(model, record) {
      return mapErrors(dialect, async () => {
        await insertRow(db, cache, `insert:${model.table}:${model.fields.length}`, model.table, encodeRecord(dialect, model, record));
      });
    },

    update(model, record, expectedVersion) {
      return mapErrors(dialect, async () => {
        const row = encodeRecord(dialect, model, record);
        const assigned = row.columns.flatMap((column, index) => (column === 'id' ? [] : [[column, row.values[index]] as const]));
        const parameters = [...assigned.map(([, value]) => value), record.id, expectedVersion, ...scopeValues(record)];
        const result = await runCached(
          db,
          cache,
          `update:${model.table}:${model.fields.length}:${scopeShape(record)}`,
          () => sql`UPDATE ${sql.table(model.table)} SET ${sql.join(assigned.map(([column, value]) => sql`${sql.ref(column)} = ${value}`))}
          WHERE ${sql.ref('id')} = ${record.id} AND ${sql.ref('version')} = ${expectedVersion} AND ${scopeCondition(record)}`,
          parameters,
        );
        return affected(result) === 1 ? { ...record, fields: { ...record.fields } } : null;
      });
    },

    appendAudit(record: AuditRecord) {
      return mapErrors(dialect, async () => {
        await insertRow(db, cache, 'audit', AUDIT_TABLE, encodeAudit(dialect, record));
        if (withLog) await appendLogLeaf(dialect, db, record);
      });
    },

    listAudit(query: AuditQuery) {
      return mapErrors(dialect, async (): Promise<AuditPage> => {
        const parts: RawBuilder<unknown>[] = [sql`${sql.ref('tenant_id')} = ${query.tenantId}`];
        if (query.workspaceId !== undefined) parts.push(sql`${sql.ref('workspace_id')} = ${query.workspaceId}`);
        if (query.workspaceIds !== undefined)
          parts.push(query.workspaceIds.length === 0 ? sql`1 = 0` : sql`${sql.ref('workspace_id')} IN (${sql.join(query.workspaceIds)})`);
        if (query.reach !== undefined) parts.push(reachCondition(query.reach));
        if (query.field !== undefined) parts.push(fieldChangedCondition(dialect, query.field));
        if (query.cellId !== undefined) parts.push(sql`${sql.ref('cell_id')} = ${query.cellId}`);
        if (query.resourceType !== undefined) parts.push(sql`${sql.ref('resource_type')} = ${query.resourceType}`);
        if (query.resourceId !== undefined) parts.push(sql`${sql.ref('resource_id')} = ${query.resourceId}`);
        if (query.changeSetId !== undefined) parts.push(sql`${sql.ref('change_set_id')} = ${query.changeSetId}`);
        if (query.cursor !== undefined) parts.push(sql`${sql.ref('seq')} < ${decodeAuditCursor(query.cursor)}`);
        const limit = Math.max(1, Math.floor(query.limit));
        const where = sql.join(parts, sql` AND `);
        // One row more than the page tells whether another page follows; a size cut tells it by itself.
        const { rows } =
          query.maxLength === undefined
            ? await sql<Row>`SELECT * FROM ${sql.table(AUDIT_TABLE)} WHERE ${where} ORDER BY ${sql.ref('seq')} DESC LIMIT ${limit + 1}`.execute(db)
            : await sizedPage({ ...auditPageSize(dialect), where, direction: 'desc', limit: limit + 1, maxLength: query.maxLength }).execute(db);
        const page = rows.slice(0, limit);
        const last = page[page.length - 1];
        const more = rows.length > limit || (rows.length > 0 && Number(rows[0]!.window_rows ?? 0) > rows.length);
        const cursors = page.map((row) => encodeAuditCursor(row.seq as string | number));
        return {
          records: page.map((row) => decodeAudit(dialect, row)),
          nextCursor: more && last ? cursors[cursors.length - 1]! : null,
          cursors,
        };
      });
    },

    getAudit(tenantId, auditId) {
      return mapErrors(dialect, async () => {
        const { rows } =
          await sql<Row>`SELECT * FROM ${sql.table(AUDIT_TABLE)} WHERE ${sql.ref('id')} = ${auditId} AND ${sql.ref('tenant_id')} = ${tenantId}`.execute(db);
        return rows[0] ? decodeAudit(dialect, rows[0]) : null;
      });
    },

    putVersionState(model, state) {
      return mapErrors(dialect, async () => {
        const values = [
          model.resourceType,
          state.id,
          state.version,
          state.tenantId,
          state.workspaceId,
          state.cellId,
          dialect.encode('json', state),
          dialect.encode('timestamp', state.updatedAt),
        ];
        await insertRow(db, cache, 'version', VERSION_TABLE, { columns: VERSION_COLUMN_NAMES, values });
      });
    },

    getVersionState(model, scope: RecordScope, id, version) {
      return mapErrors(dialect, async () => {
        // Cached like `get`: time travel reads a version state per call (docs/time-travel.md).
        const { rows } = await runCached(
          db,
          cache,
          `versionState:${scopeShape(scope)}`,
          () => sql<Row>`SELECT ${sql.ref('state')} FROM ${sql.table(VERSION_TABLE)}
          WHERE ${sql.ref('resource_type')} = ${model.resourceType} AND ${sql.ref('id')} = ${id} AND ${sql.ref('version')} = ${version}
          AND ${scopeCondition(scope)}`,
          [model.resourceType, id, version, ...scopeValues(scope)],
        );
        return rows[0] ? (dialect.decode('json', rows[0].state) as StoredRecord) : null;
      });
    },

    getVersionStateAt(model, scope, id, at) {
      return getVersionStateAt(dialect, db, cache, model, scope, id, at);
    },

    listVersionStatesAt(model, scope, at, after, limit) {
      return listVersionStatesAt(dialect, db, model, scope, at, after, limit);
    },

    getIdempotency(tenantId, actorId, key) {
      return mapErrors(dialect, async () => {
        const { rows } = await sql<Row>`SELECT * FROM ${sql.table(IDEMPOTENCY_TABLE)}
          WHERE ${sql.ref('tenant_id')} = ${tenantId} AND ${sql.ref('actor_id')} = ${actorId} AND ${sql.ref('key')} = ${key}`.execute(db);
        return rows[0] ? decodeIdempotency(dialect, rows[0]) : null;
      });
    },

    putIdempotency(record: IdempotencyRecord) {
      return mapErrors(dialect, async () => {
        const row = encodeIdempotency(dialect, record);
        // Put-if-absent, except that a record expired by the time of this one is taken over.
        const table = sql.table(IDEMPOTENCY_TABLE);
        const assignments = row.columns
          .filter((column) => !IDEMPOTENCY_KEY_COLUMNS.includes(column))
          .map((column) => sql`${sql.id(column)} = excluded.${sql.id(column)}`);
        const result = await sql`${insertStatement(IDEMPOTENCY_TABLE, row)}
          ON CONFLICT (${sql.join(IDEMPOTENCY_KEY_COLUMNS.map((column) => sql.id(column)))}) DO UPDATE SET ${sql.join(assignments)}
          WHERE ${table}.${sql.id('expires_at')} IS NOT NULL AND ${table}.${sql.id('expires_at')} <= excluded.${sql.id('created_at')}`.execute(db);
        return affected(result) === 1;
      });
    },

    appendEvent(event) {
      return appendEvent(dialect, db, event);
    },

    upgrade: sqlUpgradeOperations(dialect, db),
  };
}

/** A reference field of the model; any other name is a programming error and never reaches SQL. */
function referenceField(model: EntityStorageModel, field: string): void {
  if (!model.referenceFields?.includes(field)) throw new Error(`${model.table}.${field} is not a reference field`);
}

const IDEMPOTENCY_KEY_COLUMNS = ['tenant_id', 'actor_id', 'key'];

/**
 * Deletes at most `limit` idempotency rows expired at `now`, oldest expiry first, in one
 * statement (the `expires_at` index finds them without a scan).
 */
export function sweepIdempotency(dialect: SqlDialect, db: SqlDb | SqlTx, now: string, limit: number): Promise<number> {
  return mapErrors(dialect, async () => {
    const table = sql.table(IDEMPOTENCY_TABLE);
    const keys = sql.join(IDEMPOTENCY_KEY_COLUMNS.map((column) => sql.id(column)));
    const result = await sql`DELETE FROM ${table} WHERE (${keys}) IN (
      SELECT ${keys} FROM ${table} WHERE ${sql.id('expires_at')} <= ${dialect.encode('timestamp', now)} ORDER BY ${sql.id('expires_at')} LIMIT ${limit})`.execute(
      db,
    );
    return affected(result);
  });
}
