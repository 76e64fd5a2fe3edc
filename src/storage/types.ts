/**
 * The storage seam: what the governed-resource core asks of a database.
 *
 * Drivers are deliberately dumb and identical in behaviour. Soft delete, rollback, restore,
 * redaction and audit content are core policy, built from these calls inside one
 * {@link StorageDriver.transaction}. A driver stores and finds; it never decides.
 *
 * Naming: field names at this seam are the snake_case names of the entity document
 * (`invoice_number`, `created_at`); base record properties are camelCase on {@link StoredRecord}.
 * Timestamps are ISO 8601 strings in UTC as produced by `Date#toISOString()` (the core normalises
 * every `date-time` value to that form before it reaches a driver, so text comparison and time
 * comparison agree).
 */

/** Where an entity lives, from its document's `scope`. */
export type EntityScope = 'system-global' | 'workspace-shared' | 'cell-isolated';

/** Type of a business field, from the document's field descriptor. */
export type StorageFieldType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/** One business field of an entity as a driver sees it. */
export interface StorageField {
  /** snake_case name, `[a-z][a-z0-9_]*`; safe to use as a column name. */
  name: string;
  type: StorageFieldType;
  format?: 'uuid' | 'date-time' | 'email' | 'url';
  nullable: boolean;
  /**
   * Every record holds a value (the document's field is neither `optional` nor `nullable`).
   * `migrate` refuses a table with rows lacking one (docs/storage.md#what-migrate-refuses).
   * @default false
   */
  required?: boolean;
  /** The values a `string` field allows; `migrate` refuses a table whose rows hold another. */
  enum?: readonly string[];
  /**
   * The document's `default`: a JSON constant of the field's type, or a generator
   * `{ $generate: 'now' | 'uuid' }`. A required field with a default may be added over stored
   * rows: `migrate` backfills them in bounded batches (docs/evolving-entities.md).
   */
  default?: StorageFieldDefault;
  /**
   * The document's `renamed_from`: the column this field was stored in before. `migrate` plans
   * the rename (a generated migration on SQL drivers) instead of refusing a drop and an add.
   */
  renamedFrom?: string;
}

/** A field default at the storage seam: a JSON constant, or a generator evaluated per row. */
export type StorageFieldDefault =
  | { readonly $generate: 'now' | 'uuid' }
  | string
  | number
  | boolean
  | null
  | readonly unknown[]
  | { readonly [key: string]: unknown };

/**
 * What a driver needs to know about one governed entity, derived from its entity document by the
 * core. Each major version of an entity is its own model (its own table).
 */
export interface EntityStorageModel {
  /** Entity reference `<domain>.<EntityName>@v<major>`, e.g. `crm.Invoice@v1`; the audit `resourceType`. */
  resourceType: string;
  /** Table name for this entity major, `[a-z][a-z0-9_]*`, e.g. `crm_invoice_v1`. */
  table: string;
  scope: EntityScope;
  /** Business fields, base fields excluded, in document order. */
  fields: StorageField[];
  /** Field names (snake_case, business or `created_at`/`updated_at`) lists filter or sort on; SQL drivers index them. */
  indexedFields: string[];
  /**
   * Business fields (uuid) that reference another entity's records (docs/entities.md#relations):
   * SQL drivers index each by tenant and value among live rows, so the referrers of a record and
   * a list filtered by the field are found without a scan. Absent: none.
   */
  referenceFields?: readonly string[];
}

/** The tenancy boundary of a record. `workspaceId` is null for system-global entities, `cellId` outside cells. */
export interface RecordScope {
  tenantId: string;
  workspaceId: string | null;
  cellId: string | null;
}

/** One stored record: base properties in camelCase, business values by snake_case name in `fields`. */
export interface StoredRecord extends RecordScope {
  id: string;
  /** Optimistic-concurrency counter: 1 on create, + 1 on every change of persisted state. */
  version: number;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
  deletedAt: string | null;
  deletedBy: string | null;
  fields: Record<string, unknown>;
}

/** List filter operators, as the entity document's data block names them. */
export type FilterOperator = 'equals' | 'in' | 'contains' | 'startsWith' | 'before' | 'after' | 'between' | 'gt' | 'lt';

/**
 * One list filter. `value` is a scalar for equals/contains/startsWith/before/after/gt/lt, a
 * non-empty array for `in`, and a `[low, high]` pair (inclusive) for `between`. `contains` and
 * `startsWith` are case-insensitive. Values are already coerced by the core to the field's type.
 */
export interface ListFilter {
  field: string;
  operator: FilterOperator;
  value: unknown;
}

/** A page of a collection. Results are ordered by `sort`, ties broken by `id` ascending. */
export interface ListQuery {
  scope: RecordScope;
  filters: ListFilter[];
  /** Case-insensitive substring match of `term` on any of `fields` (OR). */
  search?: { fields: string[]; term: string };
  sort: { field: string; direction: 'asc' | 'desc' };
  offset: number;
  limit: number;
  /** Include soft-deleted records (deletedAt not null). */
  includeDeleted: boolean;
  /**
   * How to count `total` (PostgREST's `Prefer: count=`): `exact` (default) counts every match;
   * `planned` and `estimated` count at most `EXACT_COUNT_THRESHOLD` + 1 matches of the query's
   * scope and, beyond, give that lower bound (`count: 'planned'`), never an estimate drawn from
   * the whole table (it would count other tenants' rows). Drivers that count for free (memory)
   * always count exactly.
   */
  count?: CountMethod;
  /**
   * Read the page in batches of at most this many characters of stored records (at least one
   * record each; docs/decisions/B25.md): `records` is then the first batch and
   * {@link ListResult.rest} yields the others, read only as they are pulled, so a reader holds
   * about one batch whatever `limit` × record size is. SQL drivers count the stored text of a
   * row's text and JSON columns plus a fixed allowance for the others. Only for reads outside a
   * transaction. Absent: the whole page in `records`, as drivers that ignore it answer.
   */
  maxLength?: number;
}

/** How a list total is counted. */
export type CountMethod = 'exact' | 'planned' | 'estimated';

/** Records of one page and the count of all records matching the filters and scope. */
export interface ListResult {
  records: StoredRecord[];
  total: number;
  /** How `total` was obtained: counted, or `planned`: counting stopped at a bound, `total` is at least that. @default 'exact' */
  count?: 'exact' | 'planned';
  /**
   * The records of the page after `records`, in page order, batch by batch (each within the
   * query's `maxLength`, at least one record), when the page did not fit in one batch. The page's
   * ids are fixed by the first read: a write between two batches can neither repeat nor drop a
   * record of the page; each record is served as its batch reads it (a record removed from the
   * store meanwhile is left out). Absent: `records` is the whole page.
   */
  rest?: AsyncIterable<StoredRecord[]>;
}

/** Audit event types (docs/governed-conventions.md#events). */
export type AuditEventType =
  | 'entity.created'
  | 'entity.updated'
  | 'entity.deleted'
  | 'entity.restored'
  | 'entity.rollback'
  | 'entity.permission_changed'
  | 'entity.erased'
  | 'entity.purged'
  | 'audit.purged'
  /** A record copied from an older major by an online upgrade (docs/decisions/B40.md); the first record of its history in the newer major. */
  | 'entity.upgraded';

/**
 * One audit record, the fields of docs/governed-conventions.md#audit-record's audit record in camelCase, plus `reason` (the
 * optional rollback reason). Append-only: a driver never updates or deletes one, except through the
 * retention operations of a maintenance transaction (docs/lifecycle.md).
 */
export interface AuditRecord extends RecordScope {
  id: string;
  actorId: string;
  actorType: 'user' | 'service';
  eventType: AuditEventType;
  resourceType: string;
  resourceId: string;
  /** Version after the change. */
  resourceVersion: number;
  /** Version before the change; null on create. */
  baseVersion: number | null;
  occurredAt: string;
  requestId: string | null;
  traceId: string | null;
  ip: string | null;
  userAgent: string | null;
  changeKind: 'diff' | 'snapshot';
  diff: unknown;
  snapshot: unknown;
  redactionApplied: boolean;
  tags: string[] | null;
  reason: string | null;
  /**
   * The change set (`api.transaction`, a cascade) this record was written in, a UUID shared by
   * every record of it; null for a write on its own (docs/decisions/B27.md). Absent on records
   * from a driver that predates change sets: read it as null.
   */
  changeSetId?: string | null;
}

/**
 * One grant of a {@link HistoryReach}: the history of these resource types, in these workspaces.
 * `workspaceIds: null` is every workspace of the tenant and its tenant-level records (a tenant-wide
 * role, or a system-global type); a list is only those workspaces, never tenant-level records.
 */
export interface HistoryReachGrant {
  resourceTypes: readonly string[];
  workspaceIds: readonly string[] | null;
}

/**
 * What a caller may read of a tenant's history (audit records and events): a record is within
 * reach when one grant names its resource type and admits its workspace. Records out of reach are
 * absent from pages and counts, filtered by the driver before paging. An empty list reaches
 * nothing; the governed core computes it from the caller's roles (docs/decisions/B08.md).
 */
export type HistoryReach = readonly HistoryReachGrant[];

/** Which audit records to read, newest first. `workspaceId`/`cellId` narrow when given. */
export interface AuditQuery {
  tenantId: string;
  workspaceId?: string;
  /** Only records of these workspaces (no tenant-level ones). */
  workspaceIds?: readonly string[];
  /** Only records within this reach; absent: no such filter. */
  reach?: HistoryReach;
  /**
   * Only records whose diff changed this field: a JSON Pointer (`/status`) matching operations on
   * it or below it (`/address` matches `/address/city`), an `add` of null excepted (a create adds
   * every field, unset ones as null). Filtered before paging. Absent: no such filter.
   */
  field?: string;
  cellId?: string;
  resourceType?: string;
  resourceId?: string;
  /** Only the records of this change set (docs/decisions/B27.md). */
  changeSetId?: string;
  limit: number;
  /** Opaque cursor from a previous page's `nextCursor`. Drivers reject a malformed one with 400 `VALIDATION_ERROR`. */
  cursor?: string;
  /**
   * Most characters the page's records may take together (at least one record is answered): the
   * driver stops reading there and `nextCursor` goes on after the last record answered, so a
   * reader's memory stays near this bound whatever `limit` says. SQL drivers count the stored JSON
   * of `diff` and `snapshot` plus a fixed allowance for the other columns. Absent: only `limit`.
   */
  maxLength?: number;
}

/** A page of audit records, newest first (most recently appended first). */
export interface AuditPage {
  records: AuditRecord[];
  /** Cursor of the next (older) page, or null at the end. */
  nextCursor: string | null;
  /**
   * The cursor after each record of `records` (same index): a caller that serves fewer records
   * than it read goes on from the last one it served. Optional for third-party drivers.
   */
  cursors?: string[];
}

/**
 * Which audit records to export (`GET /v1/audit` as NDJSON, `cellgate audit export`): a tenant's
 * records with `from <= occurredAt < to`, oldest first (by `occurredAt`, then by append order).
 * `from` and `to` are ISO 8601 UTC strings as `Date#toISOString()` writes them.
 */
export interface AuditExportQuery {
  tenantId: string;
  /** First instant included. */
  from: string;
  /** First instant no longer included (a half-open range, so consecutive ranges never overlap). */
  to: string;
  resourceType?: string;
  /** Only records of these workspaces (no tenant-level ones; none for an empty list). */
  workspaceIds?: readonly string[];
  /** Only records within this reach; absent: no such filter. */
  reach?: HistoryReach;
  /** Records read per storage round trip, at most (and by default) `AUDIT_EXPORT_PAGE_SIZE` of `limits.ts`. */
  pageSize?: number;
}

/**
 * What a create sent with an `Idempotency-Key` left behind, so a repeat replays its answer. The
 * governed core stores only the created record's id and version in `body` (never field values:
 * no personal data or credential lands here) and rebuilds the answer from the version state.
 */
export interface IdempotencyRecord {
  tenantId: string;
  actorId: string;
  key: string;
  /** Stable hash of the request (resource + body) that first used the key. */
  requestHash: string;
  status: number;
  /** What the replay needs, serialised (the core writes `{"id":…,"version":…}`). */
  body: string;
  createdAt: string;
  /**
   * When the key is forgotten (ISO 8601 UTC). From then on the record is ignored, replaced by a
   * new first use of the key, and removed by {@link StorageDriver.sweepIdempotency}. Absent: never.
   */
  expiresAt?: string;
}

/** The operations available inside (and, for reads, outside) a transaction. */
export interface StorageSession {
  /** A record by id within `scope`, soft-deleted ones included; null when absent or in another scope. */
  get(model: EntityStorageModel, scope: RecordScope, id: string): Promise<StoredRecord | null>;
  list(model: EntityStorageModel, query: ListQuery): Promise<ListResult>;
  /**
   * Whether a live (not soft-deleted) record `id` lies in exactly `scope`, read inside the write
   * transaction and locked until it ends (docs/decisions/B29.md). `share` (a reference check):
   * PostgreSQL takes `FOR SHARE`, which a concurrent soft delete (an UPDATE of the row's version,
   * so not `FOR KEY SHARE`) waits for. `update` (a delete about to look for referrers): `FOR NO KEY
   * UPDATE`, which waits for, and then blocks, every `share` lock, so referrers written before it
   * are seen and none can be written after. SQLite's write lock and the memory driver's mutex
   * already serialise writers.
   */
  lockLive(model: EntityStorageModel, scope: RecordScope, id: string, mode?: 'share' | 'update'): Promise<boolean>;
  /**
   * Live records of `model` whose reference field `field` holds `id`, within `within` (its tenant,
   * and its workspace and cell where they are not null: a null one means any), ascending by id, at
   * most `limit`. Served by the reference index of the field.
   */
  listReferrers(model: EntityStorageModel, field: string, within: RecordScope, id: string, limit: number): Promise<StoredRecord[]>;
  insert(model: EntityStorageModel, record: StoredRecord): Promise<void>;
  /**
   * Replaces the record whose id, scope and current version equal `record`'s id, scope and
   * `expectedVersion`, in one conditional write. Resolves the written record, or `null` when no
   * row matched (the version moved on, or the record is gone): drivers never throw for a
   * conflict; the core maps `null` to 404 or 409.
   */
  update(model: EntityStorageModel, record: StoredRecord, expectedVersion: number): Promise<StoredRecord | null>;
  appendAudit(record: AuditRecord): Promise<void>;
  listAudit(query: AuditQuery): Promise<AuditPage>;
  /** One audit record by id within a tenant, or null. */
  getAudit(tenantId: string, auditId: string): Promise<AuditRecord | null>;
  /** Stores the full, unredacted state of a record at one version (rollback reads it back). */
  putVersionState(model: EntityStorageModel, state: StoredRecord): Promise<void>;
  /** The state stored for (record id, version), or null. O(1) in history length. */
  getVersionState(model: EntityStorageModel, scope: RecordScope, id: string, version: number): Promise<StoredRecord | null>;
  /**
   * The state of a record current at `at` (ISO 8601 UTC): of its stored states recorded at or
   * before `at` (a state's time is its `updatedAt`), the latest, the higher version on a tie; null
   * when there is none in `scope`. One index probe whatever the history length (time travel,
   * docs/time-travel.md).
   */
  getVersionStateAt(model: EntityStorageModel, scope: RecordScope, id: string, at: string): Promise<StoredRecord | null>;
  /**
   * The states current at `at` ({@link StorageSession.getVersionStateAt}) of the records of `scope`
   * created at or before `at`, one entry per record, ascending by id after `after` (null: from the
   * first), at most `limit`: a keyset batch of a collection read as of an instant. `state` is null
   * for a record whose state at `at` is no longer stored (retention removed it).
   */
  listVersionStatesAt(model: EntityStorageModel, scope: RecordScope, at: string, after: string | null, limit: number): Promise<VersionStateAt[]>;
  getIdempotency(tenantId: string, actorId: string, key: string): Promise<IdempotencyRecord | null>;
  /**
   * Stores the first answer for a key; resolves false (and stores nothing) if the key already has
   * a record that has not expired at `record.createdAt`. An expired record is replaced.
   */
  putIdempotency(record: IdempotencyRecord): Promise<boolean>;
  /**
   * Appends one domain event to the outbox, in the same transaction as the audit record it was
   * derived from. It becomes visible (feed, dispatcher) only when that transaction commits, and
   * its position in the tenant's feed is its commit order.
   */
  appendEvent(event: DomainEvent): Promise<void>;
  /** The online upgrade's reads and bookkeeping (docs/decisions/B40.md); absent on a driver without them. */
  readonly upgrade?: UpgradeOperations;
}

/**
 * What an online upgrade between two majors needs from storage (docs/evolving-entities.md#majors-and-upgrades):
 * a keyset walk of a table across every tenant, and a progress row written in the batch's own
 * transaction, so a killed run resumes exactly after the last committed batch.
 */
export interface UpgradeOperations {
  /** At most `limit` records of `model` with id after `after` (null: from the start), every tenant, soft-deleted included, by id. */
  scanRecords(model: EntityStorageModel, after: string | null, limit: number): Promise<StoredRecord[]>;
  /** The progress stored under `name`, or null. */
  getProgress(name: string): Promise<string | null>;
  /** Stores the progress under `name` (replacing it). */
  putProgress(name: string, value: string): Promise<void>;
}

/**
 * Why a maintenance transaction may change history: `retention` (records past a tenant's
 * retention period), `purge` (soft-deleted records past their period) or `erasure` (the personal
 * data of one record). See docs/lifecycle.md.
 */
export type MaintenanceReason = 'retention' | 'purge' | 'erasure';

/**
 * The session of a maintenance transaction: everything a transaction can do, plus the operations
 * that remove or rewrite history. Those are the only statements the append-only guard of the
 * audit table lets through, and only inside {@link StorageDriver.maintenance}.
 */
export interface MaintenanceSession extends StorageSession, ErasureOperations, RetentionOperations {
  /** Why this transaction runs (recorded with the grant the database checks). */
  readonly reason: MaintenanceReason;
}

/** One record of a collection read as of an instant: its id, and its state then (null: purged). */
export interface VersionStateAt {
  id: string;
  state: StoredRecord | null;
}

/** Which version states of one record {@link ErasureOperations.listVersionStates} reads. */
export interface VersionStateRange {
  /** Only versions above this one (the keyset cursor: the last version of the previous batch; 0 first). */
  after: number;
  /** Only versions up to this one (the record's version when the erasure began). */
  through: number;
  limit: number;
}

/** Which committed events of one record {@link ErasureOperations.listRecordEvents} reads, oldest first. */
export interface RecordEventQuery {
  tenantId: string;
  resourceType: string;
  resourceId: string;
  /** Cursor of the last event of the previous batch; absent: from the first. */
  after?: string;
  limit: number;
}

/**
 * What an erasure (docs/erasure.md) reads and rewrites of one record's history, in keyset batches
 * so a long history is never held in memory at once. Only a maintenance transaction offers them;
 * what to rewrite is the core's decision, the driver only stores it.
 */
export interface ErasureOperations {
  /** Stored version states of one record in `range`, ascending by version, at most `range.limit`. */
  listVersionStates(model: EntityStorageModel, scope: RecordScope, id: string, range: VersionStateRange): Promise<StoredRecord[]>;
  /** Replaces the stored state of (`state.id`, `state.version`); nothing when there is none. */
  replaceVersionState(model: EntityStorageModel, state: StoredRecord): Promise<void>;
  /** Replaces the diff and snapshot of one audit record; every other column (and its position) stays. */
  replaceAuditChange(tenantId: string, auditId: string, change: { diff: unknown; snapshot: unknown }): Promise<void>;
  /** Committed events of one record, in commit order. */
  listRecordEvents(query: RecordEventQuery): Promise<StoredEvent[]>;
  /**
   * Replaces the stored body of the committed event with `event.id` (of `event.tenantId`): its
   * feed position and its deliveries stay, and every later read or delivery of it gets the new body.
   */
  replaceEvent(event: DomainEvent): Promise<void>;
}

/** What one bounded removal took away: how many rows, and the time range they covered (ISO 8601 UTC). */
export interface RemovedRange {
  count: number;
  /** Earliest time among the removed rows; null when none. */
  oldest: string | null;
  /** Latest time among the removed rows; null when none. */
  newest: string | null;
}

/** What one bounded outbox trim took away, and where the next call continues. */
export interface OutboxTrim {
  events: number;
  deliveries: number;
  /** Pass as `after` to continue past events that had to stay; null when the walk reached `before` or the end. */
  next: string | null;
}

/**
 * The history-removing operations of retention and of the purge of soft-deleted records
 * (docs/lifecycle.md). Each call does bounded work (`limit` rows at most) so a job loops, one
 * maintenance transaction per batch, and never holds a large history in memory.
 */
export interface RetentionOperations {
  /** Tenants that have audit records, ascending by id, after `after` (null: from the first): at most `limit`. */
  historyTenants(after: string | null, limit: number): Promise<string[]>;
  /** Removes up to `limit` audit records of the tenant that occurred before `before`, oldest first. */
  removeAuditBefore(tenantId: string, before: string, limit: number): Promise<RemovedRange>;
  /**
   * Removes up to `limit` version states of `model` in the tenant recorded before `before`,
   * oldest first, except those a record still needs: its current version, and for a soft-deleted
   * record also the version before the delete (what a restore rolls back to).
   */
  removeVersionStatesBefore(model: EntityStorageModel, tenantId: string, before: string, limit: number): Promise<RemovedRange>;
  /**
   * Walks up to `limit` outbox events of the tenant in feed order after `after`, stopping at the
   * first that occurred at or after `before`, and removes those without a pending or dead
   * delivery (fanned out or not), with their deliveries. Events with a pending or dead delivery
   * stay.
   */
  trimOutbox(tenantId: string, before: string, limit: number, after: string | null): Promise<OutboxTrim>;
  /** Soft-deleted records of `model` in the tenant deleted before `before`, oldest deletion first, at most `limit`. */
  listDeletedBefore(model: EntityStorageModel, tenantId: string, before: string, limit: number): Promise<StoredRecord[]>;
  /**
   * Removes one soft-deleted record (matched by id, scope and version, still deleted) and every
   * version state of it. Resolves how many version states went, or null when the record no longer
   * matches (restored, changed or gone meanwhile): then nothing is removed.
   */
  removeDeletedRecord(model: EntityStorageModel, record: StoredRecord): Promise<number | null>;
}

/**
 * What a driver can promise. The storage conformance suite runs the cases of each promise only
 * for a driver that makes it (see docs/testing-drivers.md); the SQL drivers share their rate-limit
 * counts through the database only when `multiProcess` is true.
 */
export interface StorageCapabilities {
  /** Survives a process restart: a new driver on the same store reads what a closed one wrote (suite `durability`). */
  durable: boolean;
  /** Several processes may share it safely: conditional writes hold across driver instances (suite `shared-store`). */
  multiProcess: boolean;
  /** The database itself rejects UPDATE and DELETE on audit records (suite `append-only-audit`). */
  appendOnlyAuditEnforced: boolean;
}

/** How requests are counted by a rate limiter. */
export interface RateLimitPolicy {
  /** `fixed-window`: at most `limit` requests per window. `token-bucket`: a bucket of `limit` tokens refilled evenly over `windowMs`. */
  algorithm: 'fixed-window' | 'token-bucket';
  limit: number;
  windowMs: number;
}

/** The verdict on one request. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Milliseconds until a request would be allowed again (0 when allowed). */
  retryAfterMs: number;
}

/**
 * Where rate-limit counts live. `consume` must count the request and decide atomically for its key.
 *
 * @example
 * const store: RateLimitStore = { consume: (key, policy, now) => redisConsume(key, policy, now) };
 */
export interface RateLimitStore {
  consume(key: string, policy: RateLimitPolicy, now: number): RateLimitDecision | Promise<RateLimitDecision>;
}

/**
 * A storage driver. Reads outside a transaction go to the driver itself; every mutation of the
 * core runs inside {@link StorageDriver.transaction}, which commits when `fn` resolves and rolls
 * back everything it did when `fn` throws.
 */
export interface StorageDriver extends StorageSession {
  readonly name: string;
  readonly capabilities: StorageCapabilities;
  /** Creates (idempotently) the tables of these models and the shared tables: audit, version state, idempotency keys. */
  migrate(models: readonly EntityStorageModel[]): Promise<void>;
  transaction<T>(fn: (session: StorageSession) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in one transaction that may remove or rewrite history: the one path the database's
   * append-only guard allows (a grant row visible only to this transaction, see
   * docs/lifecycle.md#the-maintenance-path). Commits when `fn` resolves; a throwing `fn` leaves
   * no trace. Policy (retention, immutability, who may ask) is the core's, never the driver's.
   */
  maintenance<T>(reason: MaintenanceReason, fn: (session: MaintenanceSession) => Promise<T>): Promise<T>;
  /**
   * Deletes at most `limit` idempotency records whose `expiresAt` is at or before `now` (ISO
   * 8601), in a statement of its own; resolves how many it deleted. Bounded work per call, so the
   * core can call it on every keyed create and keep the table from growing without end.
   */
  sweepIdempotency(now: string, limit: number): Promise<number>;
  /**
   * Rate-limit counts kept in this storage, so every process sharing it counts together (one
   * atomic upsert per request). Absent when the storage is private to one process (memory, an
   * in-memory SQLite): limiters then count in process.
   */
  readonly rateLimitStore?: RateLimitStore;
  /** The committed outbox: the change feed and the webhook delivery state. */
  readonly events: EventStore;
  /**
   * The verifiable audit log (docs/verifiable-history.md): every audit record appended through a
   * session is also a leaf of its tenant's RFC 6962 Merkle tree, in the same transaction. Absent
   * on a driver without one (the log's HTTP routes then answer 404).
   */
  readonly log?: LogStore;
  /**
   * Every audit record matching `query`, oldest first, read outside any transaction in keyset
   * pages of a bounded size: memory stays constant whatever the range, and the iteration holds no
   * lock between pages. Records appended while it runs may or may not appear. Stopping the
   * iteration early (`break`, `return()`) stops the reads. A malformed `from`/`to` is the caller's
   * bug: the HTTP and CLI layers check them first.
   */
  exportAudit(query: AuditExportQuery): AsyncIterable<AuditRecord>;
  /**
   * Reclaims the space of rows removed or rewritten (by an erasure) in the tables of these models
   * and the history tables (version states, audit, outbox), so old values stop lingering in the
   * data files (docs/erasure.md#what-stays-on-disk). PostgreSQL: `VACUUM` (`plain`: dead row
   * versions are removed, their bytes may stay in free page space until reused) or `VACUUM FULL`
   * (`full`: the tables are rewritten, under an exclusive lock for the time it takes). SQLite:
   * `VACUUM` and a WAL checkpoint that truncates the log, whatever the mode. Absent where nothing
   * outlives the process (memory).
   */
  vacuum?(models: readonly EntityStorageModel[], mode: VacuumMode): Promise<void>;
  /**
   * Read routing across read replicas with read-your-writes (docs/scaling-out.md, B37). Absent on
   * a driver with one database, where every read already sees every committed write.
   */
  readonly consistency?: ConsistencyRouting;
  /** Releases connections and handles. */
  close(): Promise<void>;
}

/**
 * How a driver with read replicas routes one request (docs/scaling-out.md, B37). The governed
 * HTTP layer calls {@link ConsistencyRouting.read} around a GET or HEAD and
 * {@link ConsistencyRouting.write} around any other request; code of yours may do the same.
 */
export interface ConsistencyRouting {
  /**
   * Runs `fn` with its reads outside a transaction (records, lists, versions, audit, export, the
   * feed) served by a healthy replica, once one has replayed past `token` when given (a bounded
   * wait), else by the primary. Transactions and writes inside `fn` still go to the primary.
   */
  read<T>(token: string | undefined, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs `fn` with every read on the primary, and resolves with its result and the token that
   * covers every transaction it committed (`undefined` when it committed none).
   */
  write<T>(fn: () => Promise<T>): Promise<{ value: T; token: string | undefined }>;
  /** Whether `value` is a token this driver issued (its shape; a client's typo is a 400). */
  isToken(value: string): boolean;
}

/** How thoroughly {@link StorageDriver.vacuum} reclaims space: see there. */
export type VacuumMode = 'plain' | 'full';

/** Types of domain events: every audited mutation of a tier-1 or tier-2 entity. */
export type DomainEventType =
  | 'entity.created'
  | 'entity.updated'
  | 'entity.deleted'
  | 'entity.restored'
  | 'entity.rollback'
  | 'entity.erased'
  | 'entity.purged';

/**
 * One domain event, derived from the audit record written in the same transaction: the change is
 * the audit's (already redacted) diff or snapshot, so an event never carries a value the audit
 * would not store.
 */
export interface DomainEvent extends RecordScope {
  /** Event id (UUID), also the `webhook-id` of every delivery of it. */
  id: string;
  type: DomainEventType;
  resourceType: string;
  resourceId: string;
  /** Version after the change. */
  version: number;
  /** Version before the change; null on create. */
  baseVersion: number | null;
  occurredAt: string;
  actor: { id: string; type: 'user' | 'service' };
  requestId: string | null;
  traceId: string | null;
  /** Id of the audit record of the same change. */
  auditId: string;
  /**
   * The change set of the write, the same UUID as its audit record's; null for a write on its own
   * (docs/decisions/B27.md). An extension member of the event envelope (docs/events.md).
   */
  changeSetId?: string | null;
  /** The change as the audit stores it (values already redacted). */
  change: { kind: 'diff' | 'snapshot'; diff: unknown; snapshot: unknown; redactionApplied: boolean };
}

/** A committed event with its feed position. */
export interface StoredEvent extends DomainEvent {
  /** Opaque feed cursor: pass it as `after` to read the events committed after this one. */
  cursor: string;
}

/** Which committed events to read, oldest (first committed) first. */
export interface EventQuery {
  tenantId: string;
  workspaceId?: string;
  /** Only events of these workspaces (none: an empty list). */
  workspaceIds?: readonly string[];
  /** Only events within this reach; absent: no such filter. */
  reach?: HistoryReach;
  resourceType?: string;
  /** Cursor of the last event already seen; absent: from the first event. Malformed: 400 `VALIDATION_ERROR`. */
  after?: string;
  limit: number;
  /**
   * Most characters of JSON the answered events may take together, one more per event for the
   * separator (at least one event is answered whatever its size). The driver stops reading there,
   * so a reader's memory stays near this bound whatever `limit` says. Absent: no bound but `limit`.
   */
  maxLength?: number;
}

/** State of one webhook delivery (one event to one subscription). */
export type DeliveryState = 'pending' | 'delivered' | 'dead';

/** What storage knows about one delivery. */
export interface EventDelivery {
  subscriptionId: string;
  eventId: string;
  tenantId: string;
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string | null;
  /** HTTP status of the last attempt, null when it got no answer. */
  lastStatus: number | null;
  /** Why the last attempt failed, short. */
  lastError: string | null;
  updatedAt: string;
}

/** A delivery claimed by one dispatcher until `leaseUntil`, with its event. */
export interface ClaimedDelivery {
  delivery: EventDelivery;
  event: StoredEvent;
}

/** The outcome of one attempt, written only while the claimant still holds the lease. */
export interface DeliveryOutcome {
  subscriptionId: string;
  eventId: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  at: string;
}

/** Counts of deliveries by state. */
export interface DeliveryCounts {
  pending: number;
  delivered: number;
  dead: number;
}

/**
 * The committed side of the outbox. Every call is bounded by its `limit`. Claims are exclusive:
 * a claimed delivery is not handed to any other claimant (any process) until its lease ends.
 */
export interface EventStore {
  /** Committed events of a tenant in commit order, after the cursor. */
  listEvents(query: EventQuery): Promise<StoredEvent[]>;
  /**
   * The cursor of each tenant's latest committed event (tenants without one are absent), in one
   * cheap lookup: what long-poll waiters compare to learn that their tenant's feed moved, without a
   * feed read each. Optional: without it, waiters read the feed at every poll interval.
   */
  latestCursors?(tenantIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * Takes up to `limit` committed events not yet fanned out, creates one pending delivery (due at
   * `now`) per subscription id `route` returns for it, and marks them fanned out, in one
   * transaction. Concurrent callers take disjoint events. Resolves how many events it took.
   */
  fanOut(limit: number, route: (event: StoredEvent) => readonly string[], now: string): Promise<number>;
  /** Leases up to `limit` pending deliveries due at `now` and not leased, to `owner` until `leaseUntil`. */
  claimDeliveries(options: { now: string; limit: number; owner: string; leaseUntil: string }): Promise<ClaimedDelivery[]>;
  /** Records an attempt's outcome and releases the lease; false when `owner` no longer holds it. */
  settleDelivery(owner: string, outcome: DeliveryOutcome): Promise<boolean>;
  /** Deliveries by state, of one subscription or all. */
  deliveryCounts(subscriptionId?: string): Promise<DeliveryCounts>;
  /** Every delivery of one event (one per subscription it matched). */
  listDeliveries(eventId: string): Promise<EventDelivery[]>;
}

/** One leaf of a tenant's verifiable log as stored, with its audit record (null when retention removed it or it is missing). */
export interface LogLeafEntry {
  index: number;
  auditId: string;
  /** The stored RFC 6962 leaf hash. */
  hash: Uint8Array;
  /** Salts (or, once erased, commitments) of the record's committed values (src/storage/merkle/leaf.ts). */
  openings: Record<string, string | { c: string }>;
  record: AuditRecord | null;
}

/** A signed checkpoint the host issued for a tenant's log. */
export interface LogCheckpoint {
  tenantId: string;
  size: number;
  /** The signed note (C2SP tlog-checkpoint). */
  note: string;
  createdAt: string;
}

/**
 * The committed side of the verifiable audit log. Every read is bounded: `nodes` reads the ids it
 * is given (O(log n) for a proof), `leaves` at most `limit` rows.
 */
export interface LogStore {
  /** Leaves in the tenant's log (0 when it has none). */
  size(tenantId: string): Promise<number>;
  /** The stored subtree hashes among `ids` (level 0: leaf hashes); absent ones are left out. */
  nodes(tenantId: string, ids: readonly { level: number; index: number }[]): Promise<Array<{ level: number; index: number; hash: Uint8Array }>>;
  /** The leaf number of an audit record of the tenant, or null. */
  leafIndex(tenantId: string, auditId: string): Promise<number | null>;
  /** Leaves from number `from` on, ascending, at most `limit`. */
  leaves(tenantId: string, from: number, limit: number): Promise<LogLeafEntry[]>;
  /** Audit records the tenant has (the verifier compares it with the leaves: a record without a leaf was slipped in). */
  auditCount(tenantId: string): Promise<number>;
  /** Keeps a checkpoint (one per tenant and size; a second of the same size is ignored). */
  putCheckpoint(checkpoint: LogCheckpoint): Promise<void>;
  /** The tenant's checkpoint of the largest size, or null. */
  latestCheckpoint(tenantId: string): Promise<LogCheckpoint | null>;
}
