/**
 * The column layout of every table cellgate creates, as data: DDL, codecs and queries all read
 * these lists, so a column is declared once.
 */
import type { EntityStorageModel } from '../types.ts';
import { fieldKind, type ColumnKind } from './sql-dialect.ts';

/** One column: name, value kind and whether SQL NULL is allowed. */
export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  notNull: boolean;
}

const col = (name: string, kind: ColumnKind, notNull = false): ColumnSpec => ({ name, kind, notNull });

/** Base columns of an entity table, in order; `id` is the primary key. */
export const BASE_COLUMN_SPECS: readonly ColumnSpec[] = [
  col('id', 'text', true),
  col('tenant_id', 'text', true),
  col('workspace_id', 'text'),
  col('cell_id', 'text'),
  col('version', 'int', true),
  col('created_at', 'timestamp', true),
  col('created_by', 'text', true),
  col('updated_at', 'timestamp', true),
  col('updated_by', 'text', true),
  col('deleted_at', 'timestamp'),
  col('deleted_by', 'text'),
];

/**
 * Every column of an entity table. Business columns accept NULL: an optional field may be absent,
 * and whether a field may be null is the core's rule, checked before a value gets here.
 */
export function entityColumns(model: EntityStorageModel): readonly ColumnSpec[] {
  let columns = columnCache.get(model);
  if (columns === undefined) {
    columns = [...BASE_COLUMN_SPECS, ...model.fields.map((field) => col(field.name, fieldKind(field)))];
    columnCache.set(model, columns);
  }
  return columns;
}

// Models are long-lived objects (one per entity major); computing their columns once per write adds up.
const columnCache = new WeakMap<EntityStorageModel, readonly ColumnSpec[]>();

/** Kind of a column an entity list may filter, search or sort on, or undefined if not allowed. */
export function entityColumnKind(model: EntityStorageModel, name: string): ColumnKind | undefined {
  const field = model.fields.find((candidate) => candidate.name === name);
  if (field) return fieldKind(field);
  return BASE_COLUMN_SPECS.find((spec) => spec.name === name)?.kind;
}

/** The scope columns an entity's records always carry, by scope: the leading index columns. */
export function scopeColumns(model: EntityStorageModel): string[] {
  if (model.scope === 'system-global') return ['tenant_id'];
  if (model.scope === 'workspace-shared') return ['tenant_id', 'workspace_id'];
  return ['tenant_id', 'workspace_id', 'cell_id'];
}

/** The append-only audit table (docs/governed-conventions.md#audit-record audit record, snake_case, plus `reason` and `seq`). */
export const AUDIT_TABLE = 'cellgate_audit_log';
/** Audit columns after `seq`, in order. */
export const AUDIT_COLUMNS: readonly ColumnSpec[] = [
  col('id', 'text', true),
  col('tenant_id', 'text', true),
  col('workspace_id', 'text'),
  col('cell_id', 'text'),
  col('actor_id', 'text', true),
  col('actor_type', 'text', true),
  col('event_type', 'text', true),
  col('resource_type', 'text', true),
  col('resource_id', 'text', true),
  col('resource_version', 'int', true),
  col('base_version', 'int'),
  col('occurred_at', 'timestamp', true),
  col('request_id', 'text'),
  col('trace_id', 'text'),
  // text rather than inet: the core records what the request carried, and a proxy header that is
  // not an address must not turn an audited write into a failed one.
  col('ip', 'text'),
  col('user_agent', 'text'),
  col('change_kind', 'text', true),
  col('diff', 'json'),
  col('snapshot', 'json'),
  col('redaction_applied', 'boolean', true),
  col('tags', 'string_array'),
  col('reason', 'text'),
  // Added by the `cellgate:change-sets` step to tables made before it; null for a write on its own.
  col('change_set_id', 'text'),
];

/** Full state per (resource type, record id, version), for rollback. */
export const VERSION_TABLE = 'cellgate_version_state';
/** Version-state columns; the key is (resource_type, id, version). */
export const VERSION_COLUMNS: readonly ColumnSpec[] = [
  col('resource_type', 'text', true),
  col('id', 'text', true),
  col('version', 'int', true),
  col('tenant_id', 'text', true),
  col('workspace_id', 'text'),
  col('cell_id', 'text'),
  col('state', 'json', true),
  // When this version was written (the state's `updatedAt`): what retention compares. Rows older
  // than the column are backfilled from their state by the `cellgate:retention` migration step.
  col('recorded_at', 'timestamp'),
];

/** First answers to creates sent with an Idempotency-Key; the key is (tenant_id, actor_id, key). */
export const IDEMPOTENCY_TABLE = 'cellgate_idempotency';
/** Idempotency columns. */
export const IDEMPOTENCY_COLUMNS: readonly ColumnSpec[] = [
  col('tenant_id', 'text', true),
  col('actor_id', 'text', true),
  col('key', 'text', true),
  col('request_hash', 'text', true),
  col('status', 'int', true),
  col('body', 'text', true),
  col('created_at', 'timestamp', true),
  // Null: never expires (rows of a library version without lifetimes are backfilled by migrate).
  col('expires_at', 'timestamp'),
];

/** Rate-limit counts shared by every process on the database; the key is (rate_key, slot). */
export const RATE_LIMIT_TABLE = 'cellgate_rate_limit';
/**
 * Rate-limit columns: `slot` is the window start (fixed window) or 0 (token bucket), `hits` the
 * requests counted or tokens left, `counted_at` and `expires_at` epoch milliseconds, `allowed`
 * the verdict of the last request (1/0).
 */
export const RATE_LIMIT_COLUMNS: readonly ColumnSpec[] = [
  col('rate_key', 'text', true),
  col('slot', 'bigint', true),
  col('hits', 'double', true),
  col('counted_at', 'bigint', true),
  col('expires_at', 'bigint', true),
  col('allowed', 'int', true),
];

/** Bookkeeping of applied migration steps: name → checksum of what was applied. */
export const MIGRATIONS_TABLE = 'cellgate_migrations';

/**
 * Grants of maintenance transactions: a row exists only inside the transaction that wrote it
 * (inserted first, deleted before commit), and the audit table's append-only guard lets UPDATE and
 * DELETE through only while its own transaction's row is there.
 */
export const MAINTENANCE_TABLE = 'cellgate_audit_maintenance';

/** The event outbox: one row per committed governed mutation of a tier-1/2 entity, `seq` first. */
export const EVENTS_TABLE = 'cellgate_events';
/** Outbox columns after `seq`; `payload` is the whole event, the others are what queries filter on. */
export const EVENT_COLUMNS: readonly ColumnSpec[] = [
  col('id', 'text', true),
  col('tenant_id', 'text', true),
  col('workspace_id', 'text'),
  col('resource_type', 'text', true),
  col('payload', 'json', true),
  // False until the webhook dispatcher has created the event's deliveries.
  col('fanned_out', 'boolean', true),
  // The event's position among its tenant's events, what its feed cursor names (src/storage/event-cursor.ts).
  // Nullable only because the `cellgate:event-positions` step adds it to older tables and fills it.
  col('tenant_seq', 'bigint'),
];

/** The last feed position handed out per tenant: positions never repeat, even after retention removed a tenant's every event. */
export const EVENT_POSITIONS_TABLE = 'cellgate_event_positions';

/** Webhook delivery state, one row per (subscription, event); the key is (subscription_id, event_id). */
export const DELIVERY_TABLE = 'cellgate_event_deliveries';
/** Delivery columns. */
export const DELIVERY_COLUMNS: readonly ColumnSpec[] = [
  col('subscription_id', 'text', true),
  col('event_id', 'text', true),
  col('event_seq', 'bigint', true),
  col('tenant_id', 'text', true),
  col('state', 'text', true),
  col('attempts', 'int', true),
  col('next_attempt_at', 'timestamp'),
  col('lease_owner', 'text'),
  col('lease_until', 'timestamp'),
  col('last_status', 'int'),
  col('last_error', 'text'),
  col('updated_at', 'timestamp', true),
];
