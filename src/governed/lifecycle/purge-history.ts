/**
 * `purgeHistory`: the retention and purge job (docs/lifecycle.md). For each tenant it asks the
 * resources' policy, refuses an immutable tenant, then works in bounded batches, one maintenance
 * transaction per batch: retention removes audit records, version states and delivered outbox
 * events older than the tenant's period (one `audit.purged` record per batch says what went);
 * the purge removes soft-deleted records past their period (an `entity.purged` audit record
 * without values and an `entity.purged` event each). `purgeHistory` runs for an actor (its own
 * tenant); `purgeHistoryAsOperator` is the separate entry point for code that holds the database.
 */
import { CellgateError, ConfigurationError } from '../../errors.ts';
import { MAX_OPERATOR_NAME_LENGTH, MAX_PURGE_BATCH, PURGE_BATCH_SIZE, PURGE_TENANT_PAGE } from '../../limits.ts';
import type { AuditRecord, MaintenanceSession, RemovedRange, StorageDriver, StoredRecord } from '../../storage/types.ts';
import { accessLevel } from '../access.ts';
import type { GovernedResource } from '../create-governed-resource.ts';
import type { GovernedApi } from '../http/api.ts';
import { serviceContextOf } from '../service.ts';
import type { ServiceContext } from '../service-context.ts';
import type { GovernedService } from '../service-types.ts';
import type { Actor } from '../types.ts';

/** What both kinds of run take: the policy's resources, the scope and the pace. */
export interface PurgeRunOptions {
  /** The governed API whose resources and policy the job applies (or give `resources`). */
  api?: GovernedApi;
  /** Resources or services instead of `api`; they must share one storage driver. */
  resources?: ReadonlyArray<GovernedResource | GovernedService>;
  /** Only this tenant (an operator's choice; an actor's tenant is always its own). */
  tenantId?: string;
  /** The job's clock, for periods. @default new Date() */
  now?: Date;
  /** Count what the first batch of each kind would remove, and remove nothing. @default false */
  dryRun?: boolean;
  /** Rows per statement (and records per purge transaction). @default PURGE_BATCH_SIZE */
  batchSize?: number;
}

/** Options of {@link purgeHistory}: a run on behalf of an actor. */
export interface PurgeHistoryOptions extends PurgeRunOptions {
  /**
   * Who runs it: a tenant-wide admin of every resource, who purges its own tenant only. Whatever
   * else the actor object carries (a claim named `operator`, say) gives it no wider reach; an
   * operator's run is {@link purgeHistoryAsOperator}.
   */
  actor: Actor;
}

/** Options of {@link purgeHistoryAsOperator}: a run by someone with the database in hand. */
export interface OperatorPurgeOptions extends PurgeRunOptions {
  /** The operator's name (the CLI's `cellgate-cli`, a scheduled job's), recorded as the actor id of what the job writes. */
  operator: string;
}

/** What retention removed for one tenant. */
export interface RetentionCounts {
  /** Everything older than this (ISO 8601) was in scope. */
  before: string;
  auditRecords: number;
  versionStates: number;
  events: number;
  deliveries: number;
}

/** What the job did for one tenant. */
export interface TenantPurgeReport {
  tenantId: string;
  /** Set when nothing was done: the tenant's history is immutable (operator runs over all tenants skip it). */
  skipped?: 'immutable';
  /** Null when the tenant keeps history forever. */
  retention: RetentionCounts | null;
  /** Soft-deleted records purged, and their version states. */
  purged: { records: number; versionStates: number };
}

/** The result of {@link purgeHistory}. */
export interface PurgeReport {
  dryRun: boolean;
  tenants: TenantPurgeReport[];
}

const DAY_MS = 86_400_000;

/** Thrown inside a dry-run transaction so it rolls back; carries the counts out. */
class DryRun<T> extends Error {
  constructor(readonly value: T) {
    super('dry run');
  }
}

async function inMaintenance<T>(
  storage: StorageDriver,
  reason: 'retention' | 'purge',
  dryRun: boolean,
  fn: (session: MaintenanceSession) => Promise<T>,
): Promise<T> {
  try {
    return await storage.maintenance(reason, async (session) => {
      const value = await fn(session);
      if (dryRun) throw new DryRun(value);
      return value;
    });
  } catch (error) {
    if (error instanceof DryRun) return error.value as T;
    throw error;
  }
}

function contextsOf(options: PurgeRunOptions): ServiceContext[] {
  const entries = options.api !== undefined ? Object.values(options.api.resources) : (options.resources ?? []);
  if (entries.length === 0) throw new ConfigurationError('api', 'is required: the governed API (or resources) whose policy the purge applies');
  const contexts = entries.map((entry) => serviceContextOf('service' in entry ? entry.service : entry));
  if (contexts.some((ctx) => ctx.storage !== contexts[0]!.storage)) throw new ConfigurationError('resources', 'must share one storage driver');
  return contexts;
}

/** Who runs the job: an actor (its own tenant, admin checked) or an operator (any tenant). */
type Runs = { actor: Actor } | { operator: string };

/** Only a tenant-wide admin of every resource may purge (workspace roles do not reach tenant history). */
function authorizeActor(actor: Actor, contexts: readonly ServiceContext[]): void {
  for (const ctx of contexts) {
    if (accessLevel(actor, ctx.policy.permissions, null) !== 'admin') {
      throw new CellgateError('FORBIDDEN', `Purging history needs tenant-wide admin access to every resource; you lack it on ${ctx.resourceType}`);
    }
  }
}

const immutableError = (tenantId: string): CellgateError =>
  new CellgateError('AUDIT_IMMUTABLE', 'This tenant\u2019s history is immutable: nothing of it may be purged or deleted', { details: { tenantId } });

/** The tenant's retention: the longest period any resource sets, unlimited if any keeps history forever. */
function retentionDays(contexts: readonly ServiceContext[], tenantId: string): number | undefined {
  let longest = 0;
  for (const ctx of contexts) {
    const days = ctx.lifecycle.retentionDays(tenantId);
    if (days === undefined) return undefined;
    longest = Math.max(longest, days);
  }
  return longest;
}

interface Runner {
  storage: StorageDriver;
  contexts: readonly ServiceContext[];
  actorId: string;
  actorType: 'user' | 'service';
  now: number;
  dryRun: boolean;
  batch: number;
}

/** The tenant-level audit record of one retention batch: ranges and counts, never a value. */
function purgedAudit(
  runner: Runner,
  tenantId: string,
  days: number,
  before: string,
  removed: { audit: RemovedRange; versions: RemovedRange; events: number; deliveries: number },
): AuditRecord {
  const ranges = [removed.audit, removed.versions].filter((range) => range.count > 0);
  return {
    id: crypto.randomUUID(),
    tenantId,
    workspaceId: null,
    cellId: null,
    actorId: runner.actorId,
    actorType: runner.actorType,
    eventType: 'audit.purged',
    resourceType: 'cellgate.AuditLog',
    resourceId: tenantId,
    resourceVersion: 0,
    baseVersion: null,
    occurredAt: new Date().toISOString(),
    requestId: null,
    traceId: null,
    ip: null,
    userAgent: null,
    changeKind: 'snapshot',
    diff: null,
    snapshot: {
      retentionDays: days,
      before,
      from: ranges.map((range) => range.oldest!).sort()[0] ?? null,
      to:
        ranges
          .map((range) => range.newest!)
          .sort()
          .at(-1) ?? null,
      removed: { auditRecords: removed.audit.count, versionStates: removed.versions.count, events: removed.events, deliveries: removed.deliveries },
    },
    redactionApplied: false,
    tags: null,
    reason: `retention: history older than ${days} days`,
  };
}

async function applyRetention(runner: Runner, tenantId: string, days: number): Promise<RetentionCounts> {
  const before = new Date(runner.now - days * DAY_MS).toISOString();
  const counts: RetentionCounts = { before, auditRecords: 0, versionStates: 0, events: 0, deliveries: 0 };
  let outboxAfter: string | null = null;
  let outboxDone = false;
  for (;;) {
    const step = await inMaintenance(runner.storage, 'retention', runner.dryRun, async (session) => {
      const audit = await session.removeAuditBefore(tenantId, before, runner.batch);
      const versions: RemovedRange = { count: 0, oldest: null, newest: null };
      for (const ctx of runner.contexts) {
        const range = await session.removeVersionStatesBefore(ctx.model, tenantId, before, runner.batch);
        versions.count += range.count;
        if (range.oldest !== null && (versions.oldest === null || range.oldest < versions.oldest)) versions.oldest = range.oldest;
        if (range.newest !== null && (versions.newest === null || range.newest > versions.newest)) versions.newest = range.newest;
      }
      const outbox = outboxDone ? { events: 0, deliveries: 0, next: null } : await session.trimOutbox(tenantId, before, runner.batch, outboxAfter);
      const removed = { audit, versions, events: outbox.events, deliveries: outbox.deliveries };
      if (audit.count + versions.count + outbox.events + outbox.deliveries > 0) await session.appendAudit(purgedAudit(runner, tenantId, days, before, removed));
      return { removed, next: outbox.next, busy: audit.count === runner.batch || versions.count > 0 };
    });
    counts.auditRecords += step.removed.audit.count;
    counts.versionStates += step.removed.versions.count;
    counts.events += step.removed.events;
    counts.deliveries += step.removed.deliveries;
    outboxAfter = step.next;
    outboxDone = step.next === null;
    // A dry run counts the first batch only: nothing was removed, so another would count the same rows.
    if (runner.dryRun || (!step.busy && outboxDone)) return counts;
  }
}

/** The `entity.purged` audit record: who purged which record at which last version; no values. */
function entityPurgedAudit(runner: Runner, ctx: ServiceContext, record: StoredRecord, days: number): AuditRecord {
  return {
    id: crypto.randomUUID(),
    tenantId: record.tenantId,
    workspaceId: record.workspaceId,
    cellId: record.cellId,
    actorId: runner.actorId,
    actorType: runner.actorType,
    eventType: 'entity.purged',
    resourceType: ctx.resourceType,
    resourceId: record.id,
    resourceVersion: record.version,
    baseVersion: record.version,
    occurredAt: new Date().toISOString(),
    requestId: null,
    traceId: null,
    ip: null,
    userAgent: null,
    changeKind: 'diff',
    diff: [],
    snapshot: null,
    redactionApplied: false,
    tags: null,
    reason: `purge: soft-deleted more than ${days} days ago`,
  };
}

async function purgeDeleted(runner: Runner, ctx: ServiceContext, tenantId: string, days: number): Promise<{ records: number; versionStates: number }> {
  const before = new Date(runner.now - days * DAY_MS).toISOString();
  const totals = { records: 0, versionStates: 0 };
  for (;;) {
    const written: StoredRecord[] = [];
    const step = await inMaintenance(runner.storage, 'purge', runner.dryRun, async (session) => {
      const candidates = await session.listDeletedBefore(ctx.model, tenantId, before, runner.batch);
      let records = 0;
      let versionStates = 0;
      for (const record of candidates) {
        const states = await session.removeDeletedRecord(ctx.model, record);
        if (states === null) continue;
        records += 1;
        versionStates += states;
        const audit = entityPurgedAudit(runner, ctx, record, days);
        await session.appendAudit(audit);
        await ctx.events.append(session, audit, record);
        written.push(record);
      }
      return { candidates: candidates.length, records, versionStates };
    });
    if (!runner.dryRun) for (const record of written) ctx.events.published(record);
    totals.records += step.records;
    totals.versionStates += step.versionStates;
    if (runner.dryRun || step.candidates < runner.batch) return totals;
  }
}

/** Tenants to work on: the actor's own, the named one, or every tenant with history (paged). */
async function* tenantsOf(runner: Runner, options: PurgeRunOptions, runs: Runs): AsyncGenerator<string> {
  if ('actor' in runs) {
    if (options.tenantId !== undefined && options.tenantId !== runs.actor.tenantId)
      throw new CellgateError('FORBIDDEN', 'An actor may purge only its own tenant');
    yield runs.actor.tenantId;
    return;
  }
  if (options.tenantId !== undefined) {
    yield options.tenantId;
    return;
  }
  let after: string | null = null;
  for (;;) {
    const page: string[] = await runner.storage.maintenance('retention', (session) => session.historyTenants(after, PURGE_TENANT_PAGE));
    yield* page;
    if (page.length < PURGE_TENANT_PAGE) return;
    after = page[page.length - 1]!;
  }
}

/**
 * Applies retention and the soft-delete purge of the resources' policy to the actor's own tenant.
 * Bounded work per transaction; loops until nothing is left. Throws 403 `FORBIDDEN` for an actor
 * that is not a tenant-wide admin of every resource or names another tenant, and 409
 * `AUDIT_IMMUTABLE` for a tenant whose history is immutable.
 *
 * @example
 * const report = await purgeHistory({ api, actor: tenantAdmin });
 * console.log(report.tenants[0]?.retention, report.tenants[0]?.purged);
 */
export async function purgeHistory(options: PurgeHistoryOptions): Promise<PurgeReport> {
  const { actor } = options;
  if (typeof actor !== 'object' || actor === null || typeof actor.id !== 'string' || typeof actor.tenantId !== 'string')
    throw new ConfigurationError('actor', 'must be an Actor (a tenant-wide admin); a run over any tenant is purgeHistoryAsOperator()');
  const contexts = contextsOf(options);
  authorizeActor(actor, contexts);
  return run(options, contexts, { actor });
}

/**
 * The same job run by an operator: someone with the database in hand (the `cellgate purge`
 * command, a host's schedule), admin by definition. It purges `tenantId`, or walks every tenant
 * with history, skipping and reporting immutable ones (naming an immutable tenant throws 409
 * `AUDIT_IMMUTABLE`). A deliberate capability of code: no actor, token claim or request can turn
 * a {@link purgeHistory} run into one of these (docs/lifecycle.md).
 *
 * @example
 * const report = await purgeHistoryAsOperator({ api, operator: 'nightly-job' });
 * for (const tenant of report.tenants) console.log(tenant.tenantId, tenant.retention, tenant.purged);
 */
export async function purgeHistoryAsOperator(options: OperatorPurgeOptions): Promise<PurgeReport> {
  const { operator } = options;
  if (typeof operator !== 'string' || operator.trim() === '' || operator.length > MAX_OPERATOR_NAME_LENGTH)
    throw new ConfigurationError('operator', `must be a name of 1 to ${MAX_OPERATOR_NAME_LENGTH} characters`);
  return run(options, contextsOf(options), { operator });
}

async function run(options: PurgeRunOptions, contexts: ServiceContext[], runs: Runs): Promise<PurgeReport> {
  const batch = options.batchSize ?? PURGE_BATCH_SIZE;
  if (!Number.isInteger(batch) || batch < 1 || batch > MAX_PURGE_BATCH)
    throw new ConfigurationError('batchSize', `must be an integer from 1 to ${MAX_PURGE_BATCH}`);
  const runner: Runner = {
    storage: contexts[0]!.storage,
    contexts,
    actorId: 'actor' in runs ? runs.actor.id : runs.operator,
    actorType: 'actor' in runs ? runs.actor.type : 'service',
    now: (options.now ?? new Date()).getTime(),
    dryRun: options.dryRun === true,
    batch,
  };
  const walking = 'operator' in runs && options.tenantId === undefined;
  const tenants: TenantPurgeReport[] = [];
  for await (const tenantId of tenantsOf(runner, options, runs)) {
    if (contexts.some((ctx) => ctx.lifecycle.immutable(tenantId))) {
      if (!walking) throw immutableError(tenantId);
      tenants.push({ tenantId, skipped: 'immutable', retention: null, purged: { records: 0, versionStates: 0 } });
      continue;
    }
    const report: TenantPurgeReport = { tenantId, retention: null, purged: { records: 0, versionStates: 0 } };
    // Purge first: the records it removes no longer hold back version states retention may take.
    for (const ctx of contexts) {
      const days = ctx.lifecycle.purgeDeletedAfterDays(tenantId);
      if (days === undefined) continue;
      const purged = await purgeDeleted(runner, ctx, tenantId, days);
      report.purged.records += purged.records;
      report.purged.versionStates += purged.versionStates;
    }
    const days = retentionDays(contexts, tenantId);
    if (days !== undefined) report.retention = await applyRetention(runner, tenantId, days);
    tenants.push(report);
  }
  return { dryRun: runner.dryRun, tenants };
}
