/**
 * What every governed operation shares, built once per entity: the entity, its storage model and
 * codec, the access and audit policies, metrics and logger, and the write path every mutation
 * ends in (conditional update → version state → audit), in one storage transaction.
 */
import { entityReference, loadEntity, resourcePathName, toStorageModel, type EntityDefinitionDocument, type EntityTypes } from '../entity-document/index.ts';
import { CellgateError, ConfigurationError } from '../errors.ts';
import { DEFAULT_BODY_LIMIT, RECORD_LIMIT_BODY_MULTIPLE } from '../limits.ts';
import type { AuditEventType, DomainEvent, EntityStorageModel, RecordScope, StorageDriver, StorageSession, StoredRecord } from '../storage/types.ts';
import type { AccessPolicy } from './access.ts';
import { buildAuditRecord, TenantHasher, type AuditPolicy } from './audit/index.ts';
import { EntityCodec } from './codec.ts';
import { FieldAccess, maskView } from './field-access.ts';
import type { WriteScope } from './change-set/write-scope.ts';
import { createEventPublisher, eventFromAudit, reportHookFailure, type EventPublisher } from './events/emit.ts';
import { lifecyclePolicy, type LifecyclePolicy } from './lifecycle/policy.ts';
import { idempotencyTtl } from './idempotency.ts';
import { defaultMetricsRegistry, governedMetrics, type GovernedLogger, type GovernedMetrics } from './metrics.ts';
import { parseId } from './service-schemas.ts';
import type { EntityOption, GovernedService, GovernedServiceOptions, TenantSwitch } from './service-types.ts';
import type { GovernedContext, RecordView } from './types.ts';
import type { BusinessRules } from './rules/business-rules.ts';
import { checkWrite, ruleOperationOf, type WriteCheck } from './rules/write-checks.ts';

/** Which carrier brought the expected version: it decides 409 (body or query) or 412 (If-Match). */
export type VersionCarrier = 'body' | 'if-match';

/** The shared state of one entity's operations. */
export interface ServiceContext {
  readonly entity: EntityDefinitionDocument;
  readonly storage: StorageDriver;
  readonly model: EntityStorageModel;
  readonly codec: EntityCodec;
  readonly tier: 'tier-1' | 'tier-2' | 'tier-3';
  readonly rollbackEnabled: boolean;
  readonly resourceName: string;
  readonly resourceType: string;
  readonly policy: AccessPolicy;
  readonly auditPolicy: AuditPolicy;
  readonly metrics: GovernedMetrics;
  readonly logger: GovernedLogger | undefined;
  /** Lifetime of an `Idempotency-Key` record in milliseconds. */
  readonly idempotencyTtlMs: number;
  /** Most characters of JSON a record's business fields may take after a create or an update. */
  readonly recordLimit: number;
  /** Domain events of committed tier-1/2 mutations: the outbox append and the `onEvent` call. */
  readonly events: EventPublisher;
  /** Retention, immutability and soft-delete purge policy per tenant (docs/lifecycle.md). */
  readonly lifecycle: LifecyclePolicy;
  /** Who may view and edit each field (docs/field-access.md): every answer passes through it. */
  readonly fieldAccess: FieldAccess;
  /** The entity's business rules (docs/decisions/B28.md), run by every write after {@link writeChecks}. */
  readonly rules: BusinessRules | undefined;
  /**
   * Built-in checks of every write of this entity (references, cascades), run in the write's
   * transaction before the business rules; pushed here when the service is built.
   */
  readonly writeChecks: WriteCheck[];
  /**
   * The resources of the same API by path name, this one included (only itself for a service or
   * resource on its own): what a transaction's `tx` and a rule's reader reach.
   */
  readonly peers: Map<string, PeerResource>;
}

/** A resource of the same API, as a transaction reaches it. */
export interface PeerResource {
  readonly ctx: ServiceContext;
  /** The resource's service whose operations run in `running` instead of a transaction of their own. */
  over(running: WriteScope): GovernedService;
}

const tenantSwitch = (value: TenantSwitch | undefined, fallback: boolean): ((tenantId: string) => boolean) =>
  value === undefined ? () => fallback : typeof value === 'function' ? value : () => value;

const randomSecret = (): string => [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, '0')).join('');

/** The entity of an option: `defineEntity` freezes what it returns, anything else is a raw document to check now. */
export function entityOf(entity: EntityOption<EntityTypes>): EntityDefinitionDocument {
  return Object.isFrozen(entity) ? (entity as EntityDefinitionDocument) : loadEntity(entity);
}

/** Builds the shared context; throws {@link ConfigurationError} on a bad option. */
export function createServiceContext(options: GovernedServiceOptions, model?: EntityStorageModel): ServiceContext {
  const { storage } = options;
  if (storage === undefined || typeof storage?.transaction !== 'function')
    throw new ConfigurationError('storage', 'is required: a StorageDriver such as memoryStorage()');
  if (options.tier !== undefined && !['tier-1', 'tier-2', 'tier-3'].includes(options.tier))
    throw new ConfigurationError('tier', 'must be tier-1, tier-2 or tier-3');
  const entity = entityOf(options.entity);
  const tier = options.tier ?? entity.governance_tier;
  const resourceName = options.resourceName ?? resourcePathName(entity.name);
  const resourceType = entityReference(entity);
  const codec = new EntityCodec(entity);
  const namespace = entity.key.split('.')[0]!;
  const metrics = governedMetrics(options.metrics ?? defaultMetricsRegistry);
  return {
    entity,
    storage,
    model: model ?? toStorageModel(entity),
    codec,
    tier,
    rollbackEnabled: tier === 'tier-1' || (tier === 'tier-2' && options.rollback !== false),
    resourceName,
    resourceType,
    policy: { permissions: entity.permissions, tier, scope: entity.scope, readPermission: `${namespace}.${resourceName}.read`, plans: options.plans ?? [] },
    auditPolicy: {
      resourceType,
      tier,
      codec,
      hasher: new TenantHasher(options.redaction?.hashSecret ?? randomSecret()),
      storeSnapshots: tenantSwitch(options.audit?.storeSnapshots, false),
      storeDiffValues: tenantSwitch(options.audit?.storeDiffValues, true),
    },
    metrics,
    logger: options.logger,
    idempotencyTtlMs: idempotencyTtl(options.idempotency?.ttlMs),
    recordLimit: recordLimitOf(options.recordLimit),
    events: createEventPublisher({ storage, tier, onEvent: options.onEvent, logger: options.logger }),
    lifecycle: lifecyclePolicy(options),
    fieldAccess: new FieldAccess(entity),
    rules: options.rules as BusinessRules | undefined,
    writeChecks: [],
    peers: new Map(),
  };
}

/** Where an operation reads: the running write's session inside a transaction (its own writes, no second connection), else the driver. */
export const readerOf = (ctx: ServiceContext, running: WriteScope | undefined): StorageSession => running?.session ?? ctx.storage;

/** Checks `recordLimit`. */
function recordLimitOf(limit: number | undefined): number {
  if (limit === undefined) return RECORD_LIMIT_BODY_MULTIPLE * DEFAULT_BODY_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new ConfigurationError('recordLimit', 'must be a positive integer (characters of JSON).');
  return limit;
}

/**
 * 413 `PAYLOAD_TOO_LARGE` when `fields` would take more than the record limit as JSON. Measured
 * on the values about to be stored, so a write is refused before anything is written. The length
 * is told only when `tellLength`: it counts every field, so a caller with hidden fields would learn
 * their size from it (docs/field-access.md).
 */
export function checkRecordSize(ctx: ServiceContext, fields: Record<string, unknown>, tellLength = true): void {
  const length = JSON.stringify(fields).length;
  if (length > ctx.recordLimit) {
    if (!tellLength)
      throw new CellgateError('PAYLOAD_TOO_LARGE', `The record would take more characters of JSON than the limit of ${ctx.recordLimit}.`, {
        details: { limit: ctx.recordLimit },
      });
    throw new CellgateError('PAYLOAD_TOO_LARGE', `The record would take ${length} characters of JSON, more than the limit of ${ctx.recordLimit}.`, {
      details: { limit: ctx.recordLimit, length },
    });
  }
}

/** 404 for a record that is absent, in another scope, or (for live reads) soft-deleted. */
export const notFound = (): CellgateError => new CellgateError('NOT_FOUND', 'Record not found');

/**
 * The record scope of a call: tenant from the actor, workspace and cell from the context by the
 * entity's scope. A workspace or cell id that is not a UUID names nothing in this tenant: 404.
 */
export function recordScope(ctx: ServiceContext, context: GovernedContext): RecordScope {
  const tenantId = context.actor.tenantId;
  const scope = ctx.entity.scope;
  if (scope === 'system-global') return { tenantId, workspaceId: null, cellId: null };
  const workspaceId = parseId(context.scope?.workspaceId, 'Workspace');
  if (scope === 'workspace-shared') return { tenantId, workspaceId, cellId: null };
  return { tenantId, workspaceId, cellId: parseId(context.scope?.cellId, 'Cell') };
}

/** The conflict of a stale version: 412 `PRECONDITION_FAILED` for If-Match, 409 `CONFLICT` otherwise. */
export function conflict(ctx: ServiceContext, context: GovernedContext, current: StoredRecord, expected: number, carrier: VersionCarrier): CellgateError {
  ctx.metrics.conflicts.inc({ resourceType: ctx.resourceType });
  ctx.logger?.({
    level: 'warn',
    event: 'entity.conflict',
    tenantId: current.tenantId,
    workspaceId: current.workspaceId,
    cellId: current.cellId,
    resourceType: ctx.resourceType,
    resourceId: current.id,
    version: current.version,
    actorId: context.actor.id,
    requestId: context.meta?.requestId ?? null,
    traceId: context.meta?.traceId ?? null,
  });
  const details = { expectedVersion: expected, currentVersion: current.version };
  return carrier === 'if-match'
    ? new CellgateError('PRECONDITION_FAILED', 'The record changed since the version in If-Match', { details })
    : new CellgateError('CONFLICT', 'The record was changed by someone else; reload it and retry', { details });
}

/** The expected versions a call carries (after parsing). */
export interface Expectation {
  ifMatch?: number | undefined;
  expectedVersion?: number | undefined;
}

/** The carrier that decides the status of a conflict: If-Match when the request sent one. */
export const carrierOf = (expectation: Expectation): VersionCarrier => (expectation.ifMatch !== undefined ? 'if-match' : 'body');

/** Throws the conflict of a stale version, checked against each carrier the call sent. */
export function checkVersion(ctx: ServiceContext, context: GovernedContext, current: StoredRecord, expectation: Expectation): void {
  if (expectation.ifMatch !== undefined && current.version !== expectation.ifMatch) throw conflict(ctx, context, current, expectation.ifMatch, 'if-match');
  if (expectation.expectedVersion !== undefined && current.version !== expectation.expectedVersion)
    throw conflict(ctx, context, current, expectation.expectedVersion, 'body');
}

/** Reads a live record in the transaction: 404 when absent, in another scope, or deleted. */
export async function live(ctx: ServiceContext, session: StorageSession, scope: RecordScope, id: string): Promise<StoredRecord> {
  const current = await session.get(ctx.model, scope, id);
  if (current === null || current.deletedAt !== null) throw notFound();
  return current;
}

/** The next version of a record: changes applied, version + 1, updated by the actor now. */
export function nextState(current: StoredRecord, context: GovernedContext, changes: Partial<StoredRecord>): StoredRecord {
  return { ...current, ...changes, version: current.version + 1, updatedAt: new Date().toISOString(), updatedBy: context.actor.id };
}

/** One write: the audit event it records, the states around it, and what the caller sent (for business rules). */
export interface WriteChange {
  eventType: AuditEventType;
  before: StoredRecord | null;
  after: StoredRecord;
  reason?: string | null;
  carrier?: VersionCarrier;
  /** The request as sent (create or update body, rollback body; absent for a delete): the rule's `input`. */
  input?: unknown;
}

/**
 * Writes the new state in the running write: the write checks and business rules, then insert or
 * conditional update, version state, audit (with the change set's id) and outbox; the commit's
 * follow-up (event publication, metrics, log, `afterCommit`) is queued on the running write. When
 * the conditional update matches no row, another process moved the version between our read and
 * our write: the conflict is reported with the carrier the request used.
 */
export async function write(ctx: ServiceContext, running: WriteScope, context: GovernedContext, change: WriteChange): Promise<StoredRecord> {
  const { before, after } = change;
  const { session, changeSet } = running;
  running.count();
  const operation = ruleOperationOf(change.eventType);
  // Most entities have neither checks nor rules: their writes skip the call entirely.
  if (operation !== undefined && (ctx.writeChecks.length > 0 || ctx.rules?.validate !== undefined)) {
    const scope: RecordScope = { tenantId: after.tenantId, workspaceId: after.workspaceId, cellId: after.cellId };
    await checkWrite({ ctx, session, scope, before, after, context, changeSet, running, eventType: change.eventType, operation }, change.input ?? null);
  }
  if (before === null) await session.insert(ctx.model, after);
  else if ((await session.update(ctx.model, after, before.version)) === null) {
    const fresh = await session.get(ctx.model, before, before.id);
    throw fresh === null ? notFound() : conflict(ctx, context, fresh, before.version, change.carrier ?? 'body');
  }
  await session.putVersionState(ctx.model, after);
  const built = await buildAuditRecord(ctx.auditPolicy, context, { eventType: change.eventType, before, after, reason: change.reason ?? null });
  const audit = { ...built, changeSetId: changeSet.id };
  const started = performance.now();
  await session.appendAudit(audit);
  const event = (await ctx.events.append(session, audit, after)) ?? (ctx.rules?.afterCommit === undefined ? null : eventFromAudit(audit));
  ctx.metrics.auditLatency.observe(performance.now() - started);
  running.afterCommit(() => {
    written(ctx, context, change.eventType, after);
    if (event !== null) afterCommitHook(ctx, event, context);
  });
  return after;
}

/** Runs the entity's `afterCommit` with the committed event; what it throws or rejects is logged, never answered. */
function afterCommitHook(ctx: ServiceContext, event: DomainEvent, context: GovernedContext): void {
  const hook = ctx.rules?.afterCommit;
  if (hook === undefined) return;
  const failed = (error: unknown) => reportHookFailure(ctx.logger, 'rules.after_commit_failed', event, error);
  try {
    const result = hook.call(ctx.rules, structuredClone(event), { context });
    if (result instanceof Promise) result.catch(failed);
  } catch (error) {
    failed(error);
  }
}

/** Counts and logs a committed write and returns its view. */
export function written(ctx: ServiceContext, context: GovernedContext, eventType: AuditEventType, record: StoredRecord): RecordView {
  ctx.events.published(record);
  ctx.metrics.writes.inc({ resourceType: ctx.resourceType, eventType });
  if (eventType === 'entity.rollback' || eventType === 'entity.restored') ctx.metrics.rollbacks.inc({ resourceType: ctx.resourceType });
  ctx.logger?.({
    level: 'info',
    event: eventType,
    tenantId: record.tenantId,
    workspaceId: record.workspaceId,
    cellId: record.cellId,
    resourceType: ctx.resourceType,
    resourceId: record.id,
    version: record.version,
    actorId: context.actor.id,
    requestId: context.meta?.requestId ?? null,
    traceId: context.meta?.traceId ?? null,
  });
  return viewFor(ctx, context, record);
}

/** `{ data, meta }` of a record as the caller may see it: fields it may not view absent (docs/field-access.md). */
export function viewFor(ctx: ServiceContext, context: GovernedContext, record: StoredRecord): RecordView {
  return maskView(ctx.codec.view(record), ctx.fieldAccess.maskFor(context.actor, record.workspaceId));
}

/**
 * One governed operation over the shared context: `access` decides from everything but the body
 * (so the HTTP edge checks it before reading a byte of the body), `run` does the work on input
 * already parsed by the operation's schemas.
 */
export interface ServiceOperation<I, O> {
  access(ctx: ServiceContext, context: GovernedContext, scope: RecordScope, input: Omit<I, 'body'>): void;
  /**
   * `running`: the write of an `api.transaction` the operation joins (reads and writes go through
   * its session, no transaction of its own); absent, a mutation opens its own.
   */
  run(ctx: ServiceContext, context: GovernedContext, scope: RecordScope, input: I, running?: WriteScope): Promise<O>;
}
