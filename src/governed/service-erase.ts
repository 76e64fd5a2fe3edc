/**
 * Erasure (docs/erasure.md): removes the personal data of one record from its live state, every
 * stored version state, its audit records and its outbox events, in one maintenance transaction
 * (the one path past the audit table's append-only guard), and records the erasure as a new
 * version with an `entity.erased` audit record and domain event. Code and CLI only: no HTTP verb.
 */
import { z } from 'zod';
import { ERASURE_BATCH, MAX_REASON_LENGTH } from '../limits.ts';
import { CellgateError } from '../errors.ts';
import type { AuditRecord, MaintenanceSession, RecordScope, StoredRecord, VacuumMode } from '../storage/types.ts';
import { authorize } from './access.ts';
import { buildAuditRecord } from './audit/index.ts';
import { hasUnstorableText } from './codec.ts';
import { erasedChange, erasedState, erasurePlan, type ErasurePlan } from './erasure.ts';
import { serviceContextOf } from './service.ts';
import { conflict, nextState, notFound, recordScope, written, type ServiceContext } from './service-context.ts';
import { parseId, parseInput } from './service-schemas.ts';
import type { GovernedService } from './service-types.ts';
import type { GovernedContext, RecordView } from './types.ts';

/** Options of {@link eraseRecord}. */
export interface EraseOptions {
  /**
   * Why the data is erased (e.g. the ticket of the data subject's request). Stored in the
   * `entity.erased` audit record, so it must not itself hold the personal data.
   */
  reason: string;
  /**
   * camelCase names of the fields to erase; any business field may be named.
   * @default every field the entity marks as personal: `sensitive`, `credential`, `redact: hash | length`
   */
  fields?: readonly string[];
  /**
   * Reclaims the space the old values took once the erasure is committed, so they stop lingering
   * in the database files (docs/erasure.md#what-stays-on-disk): `plain` (PostgreSQL `VACUUM` of
   * the touched tables: no lock on readers or writers) or `full` (`VACUUM FULL`: the tables are
   * rewritten, and each is locked against reads and writes while it is). On SQLite either runs
   * `VACUUM` and truncates the WAL. Nothing to do on memory storage.
   * @default no vacuum
   */
  vacuum?: VacuumMode;
}

/** What an erasure did. */
export interface ErasureResult {
  /** The record after erasure (a new version). */
  record: RecordView;
  /** camelCase names of the erased fields. */
  fields: string[];
  /** Id of the `entity.erased` audit record. */
  auditId: string;
  /** How many stored items held values of those fields and were rewritten. */
  rewritten: { versionStates: number; auditRecords: number; events: number };
  /** The vacuum that ran after the erasure, or null (none asked, or nothing to vacuum: memory). */
  vacuumed: VacuumMode | null;
}

const EraseOptionsSchema = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1, { error: 'Required: why the data is erased' })
    .max(MAX_REASON_LENGTH)
    .refine((value) => !hasUnstorableText(value), 'Must not contain NUL characters or unpaired surrogates'),
  fields: z.array(z.string().max(200)).max(1000).optional(),
  vacuum: z.enum(['plain', 'full']).optional(),
});

/** What {@link eraseRecord} takes: a governed service, or a resource of `createGovernedApi` (which holds one). */
export type Erasable = GovernedService | { readonly service: GovernedService };

/**
 * Erases the personal data of one record (soft-deleted ones included). Needs admin access to the
 * record's workspace. The record gets a new version whose erased fields hold null or a fixed
 * placeholder (see `erasedValue`); every stored version state, audit diff and snapshot and outbox
 * event of the record loses those values (hashes and lengths already stored stay); nothing is
 * removed, so the history keeps its versions, paths and events. Allowed whatever the tenant's
 * audit immutability, because it keeps that shape (docs/erasure.md).
 *
 * @example
 * const result = await eraseRecord(customers, { actor: admin, scope: { workspaceId } }, customerId, { reason: 'GDPR request #4711' });
 * console.log(result.fields, result.rewritten);
 */
export async function eraseRecord(target: Erasable, context: GovernedContext, id: string, options: EraseOptions): Promise<ErasureResult> {
  const ctx = serviceContextOf('service' in target ? target.service : target);
  const scope = recordScope(ctx, context);
  const recordId = parseId(id);
  authorize(context.actor, ctx.policy, scope.workspaceId, 'erase');
  const { reason, fields, vacuum } = parseInput(EraseOptionsSchema, options, 'parameter');
  const plan = erasurePlan(ctx.codec, fields);

  const outcome = await ctx.storage.maintenance('erasure', async (session) => {
    const current = await session.get(ctx.model, scope, recordId);
    if (current === null) throw notFound();
    const after = nextState(current, context, { fields: { ...current.fields, ...Object.fromEntries(plan.values) } });
    // The conditional write first: from here on no other writer can add a version until commit.
    if ((await session.update(ctx.model, after, current.version)) === null) {
      const fresh = await session.get(ctx.model, scope, recordId);
      throw fresh === null ? notFound() : conflict(ctx, context, fresh, current.version, 'body');
    }
    const rewritten = {
      versionStates: await eraseVersionStates(ctx, session, scope, current, plan),
      auditRecords: await eraseAudit(ctx, session, current, plan),
      events: await eraseEvents(ctx, session, current, plan),
    };
    await session.putVersionState(ctx.model, after);
    const audit = await erasureAudit(ctx, context, current, after, plan, reason);
    await session.appendAudit(audit);
    await ctx.events.append(session, audit, after);
    return { after, audit, rewritten };
  });
  const vacuumed = vacuum !== undefined && ctx.storage.vacuum !== undefined ? vacuum : null;
  if (vacuumed !== null) await vacuumAfter(ctx, vacuumed);
  return {
    record: written(ctx, context, 'entity.erased', outcome.after),
    fields: plan.fields.map((field) => field.camel),
    auditId: outcome.audit.id,
    rewritten: outcome.rewritten,
    vacuumed,
  };
}

/** The vacuum after a committed erasure; its failure says that the erasure itself stands. */
async function vacuumAfter(ctx: ServiceContext, mode: VacuumMode): Promise<void> {
  try {
    await ctx.storage.vacuum!([ctx.model], mode);
  } catch (error) {
    throw new CellgateError(
      'SERVICE_UNAVAILABLE',
      `The record was erased, but the ${mode} vacuum afterwards failed; the old values may stay on disk until a vacuum succeeds (docs/erasure.md).`,
      { cause: error, headers: { 'retry-after': '60' } },
    );
  }
}

/** Rewrites the version states 1..current in keyset batches; resolves how many changed. */
async function eraseVersionStates(
  ctx: ServiceContext,
  session: MaintenanceSession,
  scope: RecordScope,
  current: StoredRecord,
  plan: ErasurePlan,
): Promise<number> {
  let count = 0;
  for (let after = 0; ; ) {
    const states = await session.listVersionStates(ctx.model, scope, current.id, { after, through: current.version, limit: ERASURE_BATCH });
    for (const state of states) {
      const erased = erasedState(state, plan);
      if (erased === null) continue;
      await session.replaceVersionState(ctx.model, erased);
      count += 1;
    }
    if (states.length < ERASURE_BATCH) return count;
    after = states[states.length - 1]!.version;
  }
}

/** Rewrites the record's audit records, page by page (newest first); resolves how many changed. */
async function eraseAudit(ctx: ServiceContext, session: MaintenanceSession, current: StoredRecord, plan: ErasurePlan): Promise<number> {
  let count = 0;
  for (let cursor: string | undefined; ; ) {
    const page = await session.listAudit({
      tenantId: current.tenantId,
      resourceType: ctx.resourceType,
      resourceId: current.id,
      limit: ERASURE_BATCH,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const record of page.records) {
      const change = erasedChange(record, plan);
      if (change === null) continue;
      await session.replaceAuditChange(record.tenantId, record.id, change);
      count += 1;
    }
    if (page.nextCursor === null) return count;
    cursor = page.nextCursor;
  }
}

/** Rewrites the change of the record's outbox events (what the feed and webhooks send); resolves how many changed. */
async function eraseEvents(ctx: ServiceContext, session: MaintenanceSession, current: StoredRecord, plan: ErasurePlan): Promise<number> {
  let count = 0;
  for (let after: string | undefined; ; ) {
    const events = await session.listRecordEvents({
      tenantId: current.tenantId,
      resourceType: ctx.resourceType,
      resourceId: current.id,
      limit: ERASURE_BATCH,
      ...(after === undefined ? {} : { after }),
    });
    for (const { cursor: _cursor, ...event } of events) {
      const change = erasedChange(event.change, plan);
      if (change === null) continue;
      await session.replaceEvent({ ...event, change: { ...event.change, ...change } });
      count += 1;
    }
    if (events.length < ERASURE_BATCH) return count;
    after = events[events.length - 1]!.cursor;
  }
}

/** The `entity.erased` audit record: who, when, why and which paths; never a value. */
async function erasureAudit(
  ctx: ServiceContext,
  context: GovernedContext,
  before: StoredRecord,
  after: StoredRecord,
  plan: ErasurePlan,
  reason: string,
): Promise<AuditRecord> {
  const audit = await buildAuditRecord(ctx.auditPolicy, context, { eventType: 'entity.erased', before, after, reason });
  if (ctx.tier === 'tier-3') return audit;
  return {
    ...audit,
    changeKind: 'diff',
    diff: plan.fields.map((field) => ({ op: 'replace', path: `/${field.camel}` })),
    snapshot: null,
    redactionApplied: true,
  };
}
