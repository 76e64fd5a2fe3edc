/**
 * Public types of the governed-resource core: who acts, in which scope, with which request
 * metadata, and the camelCase shapes it answers (docs/governed-conventions.md Area B).
 */
import type { AuditEventType, AuditRecord, CountMethod, FilterOperator, StoredRecord } from '../storage/types.ts';
import type { JsonPatchOperation } from './patch.ts';

/** The authenticated caller. Built from a verified token by the HTTP layer, or by hand in programmatic use. */
export interface Actor {
  /** Actor id (token `sub`). */
  id: string;
  /** @default 'user' in tokens */
  type: 'user' | 'service';
  tenantId: string;
  /** Tenant-wide roles; they count in every workspace. */
  roles: string[];
  /** Roles per workspace id. */
  workspaces: Record<string, string[]>;
  /** Permission strings such as `audit:read`, `audit:restore`, `crm.customers.read`. */
  permissions: string[];
  /** The tenant's plan, checked when a resource requires plans. */
  plan?: string;
}

/** Request metadata stored on audit records (docs/decisions/B14.md). All optional in programmatic use. */
export interface RequestMeta {
  /** From `X-Correlation-ID` (generated when absent). */
  requestId?: string | null;
  /** From a W3C `traceparent` header. */
  traceId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/** Where a request points below the tenant: the workspace and cell from the path. */
export interface GovernedScope {
  /** Required for workspace-shared and cell-isolated entities; ignored for system-global ones. */
  workspaceId?: string;
  /** Required for cell-isolated entities; ignored otherwise. */
  cellId?: string;
}

/** What every service call takes: the actor, the scope from the path, the request metadata. */
export interface GovernedContext {
  actor: Actor;
  scope?: GovernedScope;
  meta?: RequestMeta;
}

/** The business fields of a record whose entity is known only at run time. */
export type GeneralFields = { [field: string]: unknown };

/**
 * A record on the wire: the base properties of {@link StoredRecord} and the business fields, all in
 * camelCase at the top level. `F` is the business fields' type, inferred from a document written
 * in code (`defineEntity`), or the general record.
 */
export type EntityData<F extends object = GeneralFields> = Omit<StoredRecord, 'fields'> & F;

/** `meta` of a single-resource answer (always present, docs/governed-conventions.md). */
export interface RecordMeta {
  version: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: string;
  /** Fields this reader may not view, absent from `data` (docs/field-access.md); present only when one is hidden. */
  hiddenFields?: string[];
}

/** A single-resource answer `{ data, meta }`. */
export interface RecordView<F extends object = GeneralFields> {
  data: EntityData<F>;
  meta: RecordMeta;
  /**
   * Referenced records asked for with `include` (docs/entities.md), by include name: the target's
   * data as the caller may see it, `{ id }` alone when the caller may not read it (or it is gone),
   * null for an empty reference. Absent without `include`.
   */
  included?: Record<string, Record<string, unknown> | null>;
}

/** `meta` of a collection answer. */
export interface ListMeta {
  total: number;
  page: number;
  pageSize: number;
  /** Present when a count method was asked for: `exact` (counted) or `planned` (counting stopped at 1,001 matches: `total` is at least that). */
  count?: 'exact' | 'planned';
  /** The instant of a list read as of an instant (`asOf`), normalised to UTC. */
  asOf?: string;
  /** Fields this reader may not view, absent from every record of `data` (docs/field-access.md); present only when one is hidden. */
  hiddenFields?: string[];
}

/** A collection answer `{ data, meta: { total, page, pageSize } }`. */
export interface ListView<F extends object = GeneralFields> {
  data: EntityData<F>[];
  meta: ListMeta;
}

/** One list filter in wire terms: a camelCase field, an operator, a value (strings are coerced to the field's type). */
export interface ListFilterParam<Field extends string = string> {
  /** camelCase field name, e.g. `dueDate` (typed from `data.filtering.allowedFields` for a `defineEntity` entity). */
  field: Field;
  operator: FilterOperator;
  /** A scalar; for `in` an array or a comma-separated string; for `between` a pair or `"low,high"`. */
  value: unknown;
}

/** List parameters, already parsed from the query string (docs/decisions/B12.md). */
export interface ListParams<SortField extends string = string, FilterField extends string = string> {
  /** 1-based. @default 1 */
  page?: number;
  /** Clamped to 100; below 1 is refused. @default 20 */
  pageSize?: number;
  /** camelCase field from `sorting.allowedFields`, `createdAt` or `updatedAt`. @default the data block's default, else createdAt */
  sortBy?: SortField;
  /** @default 'asc' (or the data block's default direction when sortBy is absent) */
  sortDir?: 'asc' | 'desc';
  filters?: ListFilterParam<FilterField>[];
  /** Search term over `searching.fields`. */
  q?: string;
  /** Needs admin access and `<namespace>.<resource>.read`. @default false */
  includeDeleted?: boolean;
  /**
   * How to count `meta.total` (over HTTP: `Prefer: count=…`): `exact`, or `planned` / `estimated`
   * (counted up to a threshold, a lower bound above it; docs/governed.md#counting-list-totals).
   * When given, `meta.count` says which was used. @default exact
   */
  count?: CountMethod;
  /**
   * Read the collection as it was at this instant (RFC 3339 date-time, or a `Date`): filters, sort
   * and paging apply to the states current then (docs/time-travel.md). Needs `audit:read`.
   */
  asOf?: string | Date;
}

/** An audit record on the wire (camelCase fields of docs/governed-conventions.md#audit-record's audit record, plus `reason`). */
export type AuditView = AuditRecord;

/** One entry of `…/:id/versions` (docs/decisions/B08.md). */
export interface VersionView {
  version: number;
  eventType: AuditEventType;
  occurredAt: string;
  actorId: string;
  /** The record at that version, redacted; null for tier-3 entities. */
  snapshot: Record<string, unknown> | null;
}

/** A page of history, newest first. */
export interface HistoryPage<T> {
  data: T[];
  /** `hiddenFields`: fields of the record this reader may not view, absent from every snapshot (`versions`; docs/field-access.md). */
  meta: { limit: number; nextCursor: string | null; hiddenFields?: string[] };
}

/** Paging of history reads. */
export interface HistoryParams {
  /** 1..100. @default 20 */
  limit?: number;
  /** Opaque `nextCursor` from the previous page. */
  cursor?: string;
}

/**
 * How the expected version arrived: `body`/query (`expectedVersion`, stale → 409 CONFLICT) or the
 * `If-Match` header (stale → 412 PRECONDITION_FAILED). docs/decisions/B04.md.
 */
export interface ConcurrencyOptions {
  /** Version from `If-Match`; when set, a stale version answers 412. */
  ifMatch?: number;
  /** Version from `?expectedVersion=` (DELETE) or given programmatically; stale → 409. */
  expectedVersion?: number;
}

/** `meta` of a record read as it was (docs/time-travel.md). */
export interface HistoricalMeta extends RecordMeta {
  /** The instant the state is read at: the `asOf` asked for, or (for `versions/{n}`) when that version was written. */
  asOf: string;
}

/** A record as it was at a version or an instant: `{ data, meta }` like a GET, `meta.version` the historical version. */
export interface HistoricalView<F extends object = GeneralFields> {
  data: EntityData<F>;
  meta: HistoricalMeta;
}

/** `GET …/{id}/changes?from=&to=`: one RFC 6902 patch turning version `from` into version `to`. */
export interface ChangesView {
  data: JsonPatchOperation[];
  meta: { from: number; to: number };
}
