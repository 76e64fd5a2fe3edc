/**
 * Options and the interface of the governed service (`createGovernedService`): the domain core of
 * one governed entity, usable without HTTP.
 */
import type {
  EntityDefinition,
  EntityDocumentShape,
  EntityTypes,
  FilterFieldIn,
  GeneralEntityTypes,
  SortFieldIn,
  WidenedEntityDocument,
} from '../entity-document/index.ts';
import type { EntityStorageModel, StorageDriver } from '../storage/types.ts';
import type { EventSubscriber } from './events/emit.ts';
import type { BusinessRules } from './rules/business-rules.ts';
import type { GovernedLogger, MetricsRegistry } from './metrics.ts';
import type { JsonPatchOperation } from './patch.ts';
import type {
  AuditView,
  ChangesView,
  ConcurrencyOptions,
  GovernedContext,
  HistoricalView,
  HistoryPage,
  HistoryParams,
  ListParams,
  ListView,
  RecordView,
  VersionView,
} from './types.ts';

/**
 * The entity option: a `defineEntity(...)` result (its record type flows into the service), a
 * document written in code, or one loaded at run time (JSON/YAML, checked here, general record).
 */
export type EntityOption<T extends EntityTypes = GeneralEntityTypes> = EntityDefinition<T> | EntityDocumentShape | WidenedEntityDocument;

/**
 * The body of an update: the merge form (any input fields, `expectedVersion` unless `If-Match`
 * is sent) or the JSON Patch form.
 */
export type UpdateBody<T extends EntityTypes = GeneralEntityTypes> =
  | (Partial<T['input']> & { expectedVersion?: number })
  | { expectedVersion?: number; patch: JsonPatchOperation[] };

/** A per-tenant switch: a constant or a function of the tenant id. */
export type TenantSwitch = boolean | ((tenantId: string) => boolean);

/** A per-tenant number of days: a constant, or a function of the tenant id (undefined: unlimited, never). */
export type TenantDays = number | ((tenantId: string) => number | undefined);

/** Audit content switches (docs/governed-conventions.md#redaction-rules, docs/decisions/B09.md). */
export interface AuditOptions {
  /** Store a redacted snapshot of the new state on each audit record. @default false */
  storeSnapshots?: TenantSwitch;
  /** Keep values of non-sensitive fields in diffs; false keeps path and op only. @default true */
  storeDiffValues?: TenantSwitch;
  /**
   * How many days a tenant's history is kept: `purgeHistory` (the CLI's `cellgate purge`, the
   * host's schedule) removes audit records, version states and delivered outbox events older
   * than that, never the version a record still needs. A function of the tenant can follow its
   * plan (`(tenantId) => planOf(tenantId) === 'free' ? 365 : undefined`). See docs/lifecycle.md#retention.
   * @default unlimited
   */
  retentionDays?: TenantDays;
  /**
   * With it on for a tenant, no purge and no deletion of its history happens, whoever asks: the
   * job refuses with 409 `AUDIT_IMMUTABLE`. See docs/lifecycle.md#immutability. @default false
   */
  immutability?: TenantSwitch;
}

/** Redaction key material (docs/decisions/B09.md). */
export interface RedactionOptions {
  /**
   * Secret for the keyed HMAC-SHA256 of `redact: "hash"` fields; the key of each tenant is derived
   * from it, so hashes are stable per tenant and differ across tenants. Set it to keep hashes
   * stable across restarts.
   * @default a random secret per service instance
   */
  hashSecret?: string;
}

/** `Idempotency-Key` settings (see docs/security.md). */
export interface IdempotencyOptions {
  /**
   * How long a key is remembered, in milliseconds. Within it, a repeat with the same body replays
   * the first answer; after it the key is forgotten (a repeat creates a new record) and the
   * stored entry is swept. @default 86_400_000 (24 hours)
   */
  ttlMs?: number;
}

/** Options of {@link createGovernedService}. */
export interface GovernedServiceOptions<T extends EntityTypes = GeneralEntityTypes> {
  /** The entity, from `defineEntity(document)` (typed records), or a document checked here (general records). */
  entity: EntityOption<T>;
  /** The storage driver, e.g. `memoryStorage()`. The caller runs `storage.migrate(...)`. */
  storage: StorageDriver;
  /** Overrides the document's `governance_tier`. @default entity.governance_tier */
  tier?: 'tier-1' | 'tier-2' | 'tier-3';
  redaction?: RedactionOptions;
  audit?: AuditOptions;
  /** `false` disables rollback on a tier-2 entity (tier-1 always on, tier-3 always off). @default true */
  rollback?: boolean;
  /** Plans allowed to use this resource, lowest first; others get 403 PLAN_RESTRICTION. @default any plan */
  plans?: readonly string[];
  /** Registry receiving the write metrics. @default defaultMetricsRegistry */
  metrics?: MetricsRegistry;
  /** Receives one structured entry per write and per conflict. @default silent */
  logger?: GovernedLogger;
  /** Called after the commit of every tier-1/2 mutation with its domain event; a throw is logged, never fails the request. See docs/events.md. */
  onEvent?: EventSubscriber;
  /** `Idempotency-Key` lifetime. @default { ttlMs: 86_400_000 } */
  idempotency?: IdempotencyOptions;
  /**
   * Most characters of JSON a record's business fields may take after a create or an update;
   * a write that would make a record larger gets 413 `PAYLOAD_TOO_LARGE` and changes nothing.
   * Rollback and erasure restore or shrink earlier states and are not checked.
   * @default four times the body limit: 4194304 (over HTTP, four times `bodyLimit` when that is set)
   */
  recordLimit?: number;
  /**
   * Days after its soft delete a record is purged for good by `purgeHistory` (row and version
   * states; an `entity.purged` audit record without values stays). See
   * docs/lifecycle.md#purging-soft-deleted-records. @default never
   */
  purgeDeletedAfterDays?: TenantDays;
  /** Path name of the resource (also the `<resource>` of the `<namespace>.<resource>.read` permission). @default plural kebab-case of the entity name */
  resourceName?: string;
  /**
   * Business rules: `validate` runs in every write's transaction (create, update, delete,
   * rollback, restore; HTTP and code) and may refuse with 422 `BUSINESS_RULE_VIOLATION`;
   * `afterCommit` runs after each commit. See docs/entities.md#business-rules. @default none
   */
  rules?: BusinessRules<T>;
}

/** Options of {@link GovernedService.create}. */
export interface CreateOptions {
  /** `Idempotency-Key`: a repeat with the same body replays the first answer; another body → 422. */
  idempotencyKey?: string;
}

/** Options of {@link GovernedService.get}. */
export interface GetOptions {
  /** Also return a soft-deleted record (admin access + `<namespace>.<resource>.read`). @default false */
  includeDeleted?: boolean;
  /**
   * Referenced records to answer beside the record in `included`, by include name (`project` for
   * `project_id`), with the caller's access to each target entity (docs/entities.md). At most 8.
   */
  include?: readonly string[];
}

/**
 * The governed operations on one entity. Each takes a context and enforces access. `T` carries
 * the record and input types inferred from the entity document (see `defineEntity`).
 */
export interface GovernedService<T extends EntityTypes = GeneralEntityTypes> {
  readonly entity: EntityDefinition<T>;
  /** Audit `resourceType`, e.g. `crm.Invoice@v1`. */
  readonly resourceType: string;
  /** Path name, e.g. `invoices`. */
  readonly resourceName: string;
  /** Effective tier. */
  readonly tier: 'tier-1' | 'tier-2' | 'tier-3';
  /** Whether rollback is enabled for this resource. */
  readonly rollbackEnabled: boolean;
  /** The storage model; pass it to `storage.migrate([service.model])` before first use. */
  readonly model: EntityStorageModel;
  /** The `<namespace>.<resource>.read` permission that, with admin access, shows soft-deleted records. */
  readonly readPermission: string;
  /** Creates a record from camelCase business fields (server-assigned fields refused). */
  create(context: GovernedContext, input: T['input'], options?: CreateOptions): Promise<RecordView<T['record']>>;
  get(context: GovernedContext, id: string, options?: GetOptions): Promise<RecordView<T['record']>>;
  /** A page of records; `sortBy` and filter fields typed from the entity's `data` block. */
  list(context: GovernedContext, params?: ListParams<SortFieldIn<T>, FilterFieldIn<T>>): Promise<ListView<T['record']>>;
  /**
   * PATCH: `{ expectedVersion, ...fields }` (merge) or `{ expectedVersion, patch: [ops] }` (JSON Patch).
   * `options.ifMatch` may replace the body's `expectedVersion`.
   */
  update(context: GovernedContext, id: string, body: UpdateBody<T>, options?: ConcurrencyOptions): Promise<RecordView<T['record']>>;
  /** Soft delete; one of `options.expectedVersion` / `options.ifMatch` is required. */
  delete(context: GovernedContext, id: string, options: ConcurrencyOptions): Promise<RecordView<T['record']>>;
  /** `{ targetVersion, expectedVersion?, reason?, mode? }`; restores a soft-deleted record when the target precedes the delete. */
  rollback(context: GovernedContext, id: string, body: RollbackInput, options?: ConcurrencyOptions): Promise<RecordView<T['record']>>;
  /** Audit records of this entity (or of one record), newest first; needs `audit:read`. */
  history(context: GovernedContext, params?: HistoryParams & { resourceId?: string }): Promise<HistoryPage<AuditView>>;
  /** Versions of one record, newest first, redacted; needs `audit:read`. */
  versions(context: GovernedContext, id: string, params?: HistoryParams): Promise<HistoryPage<VersionView>>;
  /** One audit record of this entity by id; needs `audit:read`. */
  getAudit(context: GovernedContext, auditId: string): Promise<AuditView>;
  /**
   * The record as it was at an instant (RFC 3339 date-time or `Date`), a soft-deleted state with
   * its `deletedAt`; needs `audit:read`. 404 before the record existed, 410 `HISTORY_PURGED` when
   * retention removed that state, 422 `TIME_TRAVEL_DISABLED` on tier-3 (docs/time-travel.md).
   */
  asOf(context: GovernedContext, id: string, asOf: string | Date): Promise<HistoricalView<T['record']>>;
  /** The record at version `version` (as `GET …/{id}/versions/{n}`); needs `audit:read`. */
  versionAt(context: GovernedContext, id: string, version: number): Promise<HistoricalView<T['record']>>;
  /**
   * One RFC 6902 patch that turns version `from` into version `to` (either direction), computed
   * from the two states as this caller sees them; needs `audit:read`.
   */
  changes(context: GovernedContext, id: string, range: { from: number; to: number }): Promise<ChangesView>;
}

/** The body of a rollback. */
export interface RollbackInput {
  /** An earlier version of the record. */
  targetVersion: number;
  /** The version you hold; stale → 409. */
  expectedVersion?: number;
  /** Stored in the audit record. */
  reason?: string | null;
  mode?: 'revert-by-new-version';
}
