/**
 * Rows ↔ seam objects. Column values go through the dialect's `encode`/`decode` per value kind,
 * so booleans, JSON, timestamps and 64-bit integers read back exactly as they were written.
 */
import type { AuditRecord, EntityStorageModel, IdempotencyRecord, StoredRecord } from '../types.ts';
import { AUDIT_COLUMNS, entityColumns, IDEMPOTENCY_COLUMNS, type ColumnSpec } from './columns.ts';
import type { SqlDialect } from './sql-dialect.ts';

/** A row as the client returns it. */
export type Row = Record<string, unknown>;

/** Column names and encoded values of a row to write, in the order of `specs`. */
export interface EncodedRow {
  columns: string[];
  values: unknown[];
}

function encodeRow(dialect: SqlDialect, specs: readonly ColumnSpec[], source: Row): EncodedRow {
  return {
    columns: specs.map((spec) => spec.name),
    values: specs.map((spec) => dialect.encode(spec.kind, source[spec.name] ?? null)),
  };
}

function decodeRow(dialect: SqlDialect, specs: readonly ColumnSpec[], row: Row): Row {
  const out: Row = {};
  for (const spec of specs) out[spec.name] = dialect.decode(spec.kind, row[spec.name] ?? null);
  return out;
}

/** A stored record as a row of its entity table. */
export function encodeRecord(dialect: SqlDialect, model: EntityStorageModel, record: StoredRecord): EncodedRow {
  return encodeRow(dialect, entityColumns(model), {
    ...record.fields,
    id: record.id,
    tenant_id: record.tenantId,
    workspace_id: record.workspaceId,
    cell_id: record.cellId,
    version: record.version,
    created_at: record.createdAt,
    created_by: record.createdBy,
    updated_at: record.updatedAt,
    updated_by: record.updatedBy,
    deleted_at: record.deletedAt,
    deleted_by: record.deletedBy,
  });
}

/** A row of an entity table as a stored record; every business field is present (NULL → null). */
export function decodeRecord(dialect: SqlDialect, model: EntityStorageModel, row: Row): StoredRecord {
  const values = decodeRow(dialect, entityColumns(model), row);
  const fields: Record<string, unknown> = {};
  for (const field of model.fields) fields[field.name] = values[field.name];
  return {
    id: values.id as string,
    tenantId: values.tenant_id as string,
    workspaceId: values.workspace_id as string | null,
    cellId: values.cell_id as string | null,
    version: values.version as number,
    createdAt: values.created_at as string,
    createdBy: values.created_by as string,
    updatedAt: values.updated_at as string,
    updatedBy: values.updated_by as string,
    deletedAt: values.deleted_at as string | null,
    deletedBy: values.deleted_by as string | null,
    fields,
  };
}

const AUDIT_PROPERTIES: Record<string, keyof AuditRecord> = {
  id: 'id',
  tenant_id: 'tenantId',
  workspace_id: 'workspaceId',
  cell_id: 'cellId',
  actor_id: 'actorId',
  actor_type: 'actorType',
  event_type: 'eventType',
  resource_type: 'resourceType',
  resource_id: 'resourceId',
  resource_version: 'resourceVersion',
  base_version: 'baseVersion',
  occurred_at: 'occurredAt',
  request_id: 'requestId',
  trace_id: 'traceId',
  ip: 'ip',
  user_agent: 'userAgent',
  change_kind: 'changeKind',
  diff: 'diff',
  snapshot: 'snapshot',
  redaction_applied: 'redactionApplied',
  tags: 'tags',
  reason: 'reason',
  change_set_id: 'changeSetId',
};

/** An audit record as a row of the audit table (without `seq`, which the database assigns). */
export function encodeAudit(dialect: SqlDialect, record: AuditRecord): EncodedRow {
  const source: Row = {};
  for (const [column, property] of Object.entries(AUDIT_PROPERTIES)) source[column] = record[property];
  return encodeRow(dialect, AUDIT_COLUMNS, source);
}

/** A row of the audit table as an audit record. */
export function decodeAudit(dialect: SqlDialect, row: Row): AuditRecord {
  const values = decodeRow(dialect, AUDIT_COLUMNS, row);
  const record: Row = {};
  for (const [column, property] of Object.entries(AUDIT_PROPERTIES)) record[property] = values[column];
  return record as unknown as AuditRecord;
}

/** An idempotency record as a row. */
export function encodeIdempotency(dialect: SqlDialect, record: IdempotencyRecord): EncodedRow {
  return encodeRow(dialect, IDEMPOTENCY_COLUMNS, {
    tenant_id: record.tenantId,
    actor_id: record.actorId,
    key: record.key,
    request_hash: record.requestHash,
    status: record.status,
    body: record.body,
    created_at: record.createdAt,
    expires_at: record.expiresAt ?? null,
  });
}

/** A row of the idempotency table as a record. */
export function decodeIdempotency(dialect: SqlDialect, row: Row): IdempotencyRecord {
  const values = decodeRow(dialect, IDEMPOTENCY_COLUMNS, row);
  return {
    tenantId: values.tenant_id as string,
    actorId: values.actor_id as string,
    key: values.key as string,
    requestHash: values.request_hash as string,
    status: values.status as number,
    body: values.body as string,
    createdAt: values.created_at as string,
    ...(values.expires_at === null ? {} : { expiresAt: values.expires_at as string }),
  };
}
