/**
 * The governed service: the domain core of one governed entity (SEED.md Area B), no HTTP. Every
 * mutation is one storage transaction: get → version check → apply → validate → conditional update
 * → version state → audit (DESIGN.md "Flow of one governed PATCH").
 */
import { defineEntity, entityReference, resourcePathName, toStorageModel, type EntityDocumentInput } from '../contract/entity-document/index.ts';
import { CellgateError, ConfigurationError, validationError } from '../errors.ts';
import { IDEMPOTENCY_SWEEP_BATCH } from '../limits.ts';
import type { AuditEventType, IdempotencyRecord, RecordScope, StorageSession, StoredRecord } from '../storage/types.ts';
import { authorize, type AccessPolicy } from './access.ts';
import { buildAuditRecord, redactionClassOf, snapshotOf, TenantHasher, type AuditPolicy } from './audit/index.ts';
import { EntityCodec, isUuid, SERVER_ASSIGNED } from './codec.ts';
import { createEventPublisher } from './events/emit.ts';
import { checkIdempotencyKey, idempotencyTtl, isLive, replayBody, replayTarget, requestHash } from './idempotency.ts';
import { buildListQuery } from './list-query.ts';
import { defaultMetricsRegistry, governedMetrics } from './metrics.ts';
import { applyPatch, jsonEqual, parsePatch } from './patch.ts';
import { checkBodyDepth, checkVersion, expectedVersionOf, invalidRecord, parseRollbackBody, readHistoryParams, recordScope, storedId } from './service-helpers.ts';
import type { GovernedService, GovernedServiceOptions, TenantSwitch } from './service-types.ts';
import type { GovernedContext, RecordView } from './types.ts';

export type * from './service-types.ts';
export type * from './types.ts';

const tenantSwitch = (value: TenantSwitch | undefined, fallback: boolean): ((tenantId: string) => boolean) =>
  value === undefined ? () => fallback : typeof value === 'function' ? value : () => value;

const notFound = (): CellgateError => new CellgateError('NOT_FOUND', 'Record not found');

// Thrown inside a create transaction when another request stored the same key first: the
// transaction rolls back and the stored answer is replayed.
class KeyTaken extends Error {}

const randomSecret = (): string => [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * Creates the governed service of one entity: create/get/list/update/delete/rollback and history,
 * each taking a {@link GovernedContext} (actor, scope from the path, request metadata), enforcing
 * access, writing audit and metrics.
 *
 * @example
 * const storage = memoryStorage();
 * const invoices = createGovernedService({ entity: Invoice, storage });
 * await storage.migrate([invoices.model]);
 * const created = await invoices.create({ actor, scope: { workspaceId, cellId } }, { invoiceNumber: 'INV-1', amount: 100 });
 */
export function createGovernedService(options: GovernedServiceOptions): GovernedService {
  const { storage } = options;
  if (storage === undefined || typeof storage?.transaction !== 'function') throw new ConfigurationError('storage', 'is required: a StorageDriver such as memoryStorage()');
  if (options.tier !== undefined && !['tier-1', 'tier-2', 'tier-3'].includes(options.tier)) throw new ConfigurationError('tier', 'must be tier-1, tier-2 or tier-3');
  // defineEntity freezes what it returns; anything else is a raw document to check now.
  const entity = Object.isFrozen(options.entity) ? options.entity : defineEntity(options.entity as EntityDocumentInput);
  const tier = options.tier ?? entity.governance_tier;
  const rollbackEnabled = tier === 'tier-1' || (tier === 'tier-2' && options.rollback !== false);
  const resourceName = options.resourceName ?? resourcePathName(entity.name);
  const resourceType = entityReference(entity);
  const model = toStorageModel(entity);
  const codec = new EntityCodec(entity);
  const namespace = entity.key.split('.')[0]!;
  const policy: AccessPolicy = { permissions: entity.permissions, tier, scope: entity.scope, readPermission: `${namespace}.${resourceName}.read`, plans: options.plans ?? [] };
  const auditPolicy: AuditPolicy = {
    resourceType,
    tier,
    codec,
    hasher: new TenantHasher(options.redaction?.hashSecret ?? randomSecret()),
    storeSnapshots: tenantSwitch(options.audit?.storeSnapshots, false),
    storeDiffValues: tenantSwitch(options.audit?.storeDiffValues, true),
  };
  const idempotencyTtlMs = idempotencyTtl(options.idempotency?.ttlMs);
  const metrics = governedMetrics(options.metrics ?? defaultMetricsRegistry);
  const logger = options.logger;
  const events = createEventPublisher({ storage, tier, onEvent: options.onEvent, logger });

  /** Writes the new state in the open transaction: conditional update (or insert), version state, audit. */
  async function write(session: StorageSession, context: GovernedContext, eventType: AuditEventType, before: StoredRecord | null, after: StoredRecord, reason?: string | null): Promise<StoredRecord> {
    if (before === null) await session.insert(model, after);
    else if ((await session.update(model, after, before.version)) === null) {
      // Another process moved the version between our read and our conditional write.
      const fresh = await session.get(model, before, before.id);
      throw fresh === null ? notFound() : conflict(context, fresh, before.version, 'body');
    }
    await session.putVersionState(model, after);
    const audit = await buildAuditRecord(auditPolicy, context, { eventType, before, after, reason: reason ?? null });
    const started = performance.now();
    await session.appendAudit(audit);
    await events.append(session, audit, after);
    metrics.auditLatency.observe(performance.now() - started);
    return after;
  }

  function written(context: GovernedContext, eventType: AuditEventType, record: StoredRecord): RecordView {
    events.published(record);
    metrics.writes.inc({ resourceType, eventType });
    if (eventType === 'entity.rollback' || eventType === 'entity.restored') metrics.rollbacks.inc({ resourceType });
    logger?.({ level: 'info', event: eventType, tenantId: record.tenantId, workspaceId: record.workspaceId, cellId: record.cellId, resourceType, resourceId: record.id, version: record.version, actorId: context.actor.id, requestId: context.meta?.requestId ?? null });
    return codec.view(record);
  }

  function conflict(context: GovernedContext, current: StoredRecord, expected: number, carrier: 'body' | 'if-match'): CellgateError {
    metrics.conflicts.inc({ resourceType });
    logger?.({ level: 'warn', event: 'entity.conflict', tenantId: current.tenantId, workspaceId: current.workspaceId, cellId: current.cellId, resourceType, resourceId: current.id, version: current.version, actorId: context.actor.id, requestId: context.meta?.requestId ?? null });
    const details = { expectedVersion: expected, currentVersion: current.version };
    return carrier === 'if-match'
      ? new CellgateError('PRECONDITION_FAILED', 'The record changed since the version in If-Match', { details })
      : new CellgateError('CONFLICT', 'The record was changed by someone else; reload it and retry', { details });
  }

  /** Reads a live record in the transaction, 404 when absent, in another scope, or deleted. */
  async function live(session: StorageSession, context: GovernedContext, id: string): Promise<StoredRecord> {
    const current = await session.get(model, recordScope(entity.scope, context), storedId(id));
    if (current === null || current.deletedAt !== null) throw notFound();
    return current;
  }

  function nextState(current: StoredRecord, context: GovernedContext, changes: Partial<StoredRecord>): StoredRecord {
    return { ...current, ...changes, version: current.version + 1, updatedAt: new Date().toISOString(), updatedBy: context.actor.id };
  }

  /** The first answer to a keyed create, rebuilt from the state of the version it created. */
  async function replayed(stored: IdempotencyRecord, hash: string, scope: RecordScope): Promise<RecordView> {
    const target = replayTarget(stored, hash);
    const state = await storage.getVersionState(model, scope, target.id, target.version);
    if (state === null) throw new CellgateError('NOT_FOUND', 'The record created with this Idempotency-Key no longer exists');
    return codec.view(state);
  }

  const service: GovernedService = {
    entity,
    resourceType,
    resourceName,
    tier,
    rollbackEnabled,
    model,
    readPermission: policy.readPermission,

    async create(context, input, createOptions = {}) {
      const scope = recordScope(entity.scope, context);
      authorize(context.actor, policy, scope.workspaceId, 'create');
      const body = bodyObject(input);
      const { values, issues } = codec.decode(body, false);
      if (issues.length > 0) throw invalidRecord('Invalid record', issues);
      const key = createOptions.idempotencyKey;
      let hash: string | undefined;
      const now = new Date().toISOString();
      if (key !== undefined) {
        checkIdempotencyKey(key);
        hash = await requestHash({ resourceType, scope, body });
        const stored = await storage.getIdempotency(scope.tenantId, context.actor.id, key);
        if (stored !== null && isLive(stored, now)) return replayed(stored, hash, scope);
      }
      const record: StoredRecord = { id: crypto.randomUUID(), ...scope, version: 1, createdAt: now, createdBy: context.actor.id, updatedAt: now, updatedBy: context.actor.id, deletedAt: null, deletedBy: null, fields: values };
      try {
        await storage.transaction(async (session) => {
          await write(session, context, 'entity.created', null, record);
          if (key !== undefined && hash !== undefined) {
            const expiresAt = new Date(Date.parse(now) + idempotencyTtlMs).toISOString();
            const stored = await session.putIdempotency({ tenantId: scope.tenantId, actorId: context.actor.id, key, requestHash: hash, status: 201, body: replayBody(record.id, record.version), createdAt: now, expiresAt });
            if (!stored) throw new KeyTaken();
          }
        });
      } catch (error) {
        if (!(error instanceof KeyTaken) || key === undefined || hash === undefined) throw error;
        const stored = await storage.getIdempotency(scope.tenantId, context.actor.id, key);
        if (stored === null) throw error;
        return replayed(stored, hash, scope);
      }
      // Each keyed create removes a bounded batch of expired keys, so the table stays bounded. A
      // failed sweep (e.g. a lock timeout) must not fail a create that is already committed.
      if (key !== undefined) await storage.sweepIdempotency(now, IDEMPOTENCY_SWEEP_BATCH).catch(() => 0);
      return written(context, 'entity.created', record);
    },

    async get(context, id, getOptions = {}) {
      const scope = recordScope(entity.scope, context);
      authorize(context.actor, policy, scope.workspaceId, getOptions.includeDeleted === true ? 'includeDeleted' : 'read');
      const record = await storage.get(model, scope, storedId(id));
      if (record === null || (record.deletedAt !== null && getOptions.includeDeleted !== true)) throw notFound();
      return codec.view(record);
    },

    async list(context, params = {}) {
      const scope = recordScope(entity.scope, context);
      authorize(context.actor, policy, scope.workspaceId, params.includeDeleted === true ? 'includeDeleted' : 'read');
      const { query, page, pageSize } = buildListQuery(entity, scope, params);
      const result = await storage.list(model, query);
      return { data: result.records.map((record) => codec.data(record)), meta: { total: result.total, page, pageSize } };
    },

    async update(context, id, input, concurrency = {}) {
      const scope = recordScope(entity.scope, context);
      authorize(context.actor, policy, scope.workspaceId, 'update');
      const { expectedVersion, rest } = expectedVersionOf(bodyObject(input), concurrency, true);
      const isPatch = Object.hasOwn(rest, 'patch') && codec.field('patch') === undefined;
      if (isPatch && Object.keys(rest).length > 1) throw validationError('Use either the merge form or the patch form', [{ path: 'patch', message: 'Send no other fields with patch' }]);
      const operations = isPatch ? parsePatch(rest.patch, { isProtected: (field) => SERVER_ASSIGNED.has(field), redactionClass: (field) => redactionClassOf(codec.field(field)?.descriptor) }) : undefined;
      let merge: Record<string, unknown> = {};
      if (operations === undefined) {
        const decoded = codec.decode(rest, true);
        if (decoded.issues.length > 0) throw invalidRecord('Invalid record', decoded.issues);
        merge = decoded.values;
      }
      const outcome = await storage.transaction(async (session) => {
        const current = await live(session, context, id);
        checkVersion(current, concurrency, expectedVersion, conflict.bind(null, context));
        let fields: Record<string, unknown>;
        if (operations === undefined) fields = { ...current.fields, ...merge };
        else {
          const patched = applyPatch(codec.business(current), operations);
          const decoded = codec.decode(patched, false);
          if (decoded.issues.length > 0) throw invalidRecord('Invalid record after applying the patch', decoded.issues);
          fields = decoded.values;
        }
        if (codec.fields.every((field) => jsonEqual(current.fields[field.name] ?? null, fields[field.name] ?? null))) return { record: current, changed: false };
        return { record: await write(session, context, 'entity.updated', current, nextState(current, context, { fields })), changed: true };
      });
      return outcome.changed ? written(context, 'entity.updated', outcome.record) : codec.view(outcome.record);
    },

    async delete(context, id, concurrency) {
      const scope = recordScope(entity.scope, context);
      authorize(context.actor, policy, scope.workspaceId, 'delete');
      const { expectedVersion } = expectedVersionOf({}, concurrency ?? {}, true);
      const record = await storage.transaction(async (session) => {
        const current = await live(session, context, id);
        checkVersion(current, concurrency ?? {}, expectedVersion, conflict.bind(null, context));
        const now = new Date().toISOString();
        return write(session, context, 'entity.deleted', current, { ...nextState(current, context, {}), deletedAt: now, deletedBy: context.actor.id, updatedAt: now });
      });
      return written(context, 'entity.deleted', record);
    },

    async rollback(context, id, input, concurrency = {}) {
      const scope = recordScope(entity.scope, context);
      if (!rollbackEnabled) throw new CellgateError('ROLLBACK_DISABLED', tier === 'tier-3' ? 'Rollback is disabled for tier-3 entities' : 'Rollback is disabled for this resource');
      authorize(context.actor, policy, scope.workspaceId, 'rollback');
      const { targetVersion, expectedVersion, reason } = parseRollbackBody(bodyObject(input), concurrency);
      const outcome = await storage.transaction(async (session) => {
        const current = await session.get(model, scope, storedId(id));
        if (current === null) throw notFound();
        checkVersion(current, concurrency, expectedVersion, conflict.bind(null, context));
        const invalid = (message: string): CellgateError => new CellgateError('INVALID_TARGET_VERSION', message, { details: { targetVersion, currentVersion: current.version } });
        if (targetVersion < 1 || targetVersion >= current.version) throw invalid('targetVersion must be an earlier version of this record');
        const target = await session.getVersionState(model, scope, current.id, targetVersion);
        if (target === null) throw invalid('No stored state for targetVersion');
        if (target.deletedAt !== null) throw invalid('targetVersion is a deleted state; choose a version before the delete');
        const restoring = current.deletedAt !== null;
        if (restoring) authorize(context.actor, policy, scope.workspaceId, 'restore');
        const eventType: AuditEventType = restoring ? 'entity.restored' : 'entity.rollback';
        const next = nextState(current, context, { fields: target.fields, deletedAt: null, deletedBy: null });
        return { eventType, record: await write(session, context, eventType, current, next, reason) };
      });
      return written(context, outcome.eventType, outcome.record);
    },

    async history(context, params = {}) {
      const scope = recordScope(entity.scope, context);
      authorize(context.actor, policy, scope.workspaceId, 'history');
      const { limit, cursor } = readHistoryParams(params);
      if (params.resourceId !== undefined && !isUuid(params.resourceId)) throw validationError('Invalid resourceId', [{ path: 'resourceId', message: 'Expected a UUID' }]);
      const page = await storage.listAudit({
        tenantId: scope.tenantId,
        ...(scope.workspaceId === null ? {} : { workspaceId: scope.workspaceId }),
        ...(scope.cellId === null ? {} : { cellId: scope.cellId }),
        resourceType,
        ...(params.resourceId === undefined ? {} : { resourceId: params.resourceId.toLowerCase() }),
        limit,
        ...(cursor === undefined ? {} : { cursor }),
      });
      return { data: page.records, meta: { limit, nextCursor: page.nextCursor } };
    },

    async versions(context, id, params = {}) {
      const scope = recordScope(entity.scope, context);
      authorize(context.actor, policy, scope.workspaceId, 'history');
      const { limit, cursor } = readHistoryParams(params);
      const recordKey = storedId(id);
      if ((await storage.get(model, scope, recordKey)) === null) throw notFound();
      const page = await storage.listAudit({ tenantId: scope.tenantId, resourceType, resourceId: recordKey, limit, ...(cursor === undefined ? {} : { cursor }) });
      const data = await Promise.all(
        page.records.map(async (audit) => {
          const state = tier === 'tier-3' ? null : await storage.getVersionState(model, scope, recordKey, audit.resourceVersion);
          return { version: audit.resourceVersion, eventType: audit.eventType, occurredAt: audit.occurredAt, actorId: audit.actorId, snapshot: state === null ? null : (await snapshotOf(auditPolicy, state)).snapshot };
        }),
      );
      return { data, meta: { limit, nextCursor: page.nextCursor } };
    },

    async getAudit(context, auditId) {
      const scope = recordScope(entity.scope, context);
      authorize(context.actor, policy, scope.workspaceId, 'history');
      const record = await storage.getAudit(scope.tenantId, storedId(auditId, 'Audit record'));
      if (record === null || record.resourceType !== resourceType || record.workspaceId !== scope.workspaceId || (scope.cellId !== null && record.cellId !== scope.cellId)) throw notFound();
      return record;
    },
  };
  return service;
}

/** The body as an object; arrays (bulk) and scalars are refused with 400. */
function bodyObject(input: unknown): Record<string, unknown> {
  if (Array.isArray(input)) throw validationError('Bulk mutations are not supported; send one object', [{ path: 'root', message: 'Expected an object, got an array' }]);
  if (input === null || typeof input !== 'object') throw validationError('Expected a JSON object', [{ path: 'root', message: 'Expected an object' }]);
  checkBodyDepth(input);
  return input as Record<string, unknown>;
}
