/**
 * Builds the audit record of one state change (docs/governed-conventions.md#audit-record, docs/decisions/B09.md):
 * JSON Patch diff from before to after, redaction per field, per-tenant snapshot and diff-value
 * switches, tier-3 minimal records.
 */
import type { AuditEventType, AuditRecord, StoredRecord } from '../../storage/types.ts';
import type { EntityCodec } from '../codec.ts';
import type { GovernedContext } from '../types.ts';
import { diffStates } from './diff.ts';
import { redactDiff, redactSnapshot, treatmentOf, type FieldTreatment, type RedactionContext, type TenantHasher } from './redact.ts';

export { diffStates } from './diff.ts';
export { redactDiff, redactionClassOf, redactSnapshot, TenantHasher, REDACTED, type RedactedOperation } from './redact.ts';

/** The audit policy of one resource, resolved from the service options. */
export interface AuditPolicy {
  resourceType: string;
  tier: 'tier-1' | 'tier-2' | 'tier-3';
  codec: EntityCodec;
  hasher: TenantHasher;
  storeSnapshots: (tenantId: string) => boolean;
  storeDiffValues: (tenantId: string) => boolean;
}

/** Treatment of each camelCase field, from the codec's descriptors. */
export function treatments(codec: EntityCodec): Map<string, FieldTreatment> {
  return new Map(codec.fields.map((field) => [field.camel, treatmentOf(field.descriptor)]));
}

const treatmentCache = new WeakMap<EntityCodec, Map<string, FieldTreatment>>();
function cachedTreatments(codec: EntityCodec): Map<string, FieldTreatment> {
  let map = treatmentCache.get(codec);
  if (map === undefined) {
    map = treatments(codec);
    treatmentCache.set(codec, map);
  }
  return map;
}

/** The redaction context of a tenant under a policy. */
export function redactionContext(policy: AuditPolicy, tenantId: string): RedactionContext {
  return { treatments: cachedTreatments(policy.codec), hasher: policy.hasher, tenantId, storeDiffValues: policy.storeDiffValues(tenantId) };
}

/** The redacted wire snapshot of a stored state (versions endpoint, audit snapshots). */
export async function snapshotOf(policy: AuditPolicy, state: StoredRecord): Promise<{ snapshot: Record<string, unknown>; applied: boolean }> {
  return redactSnapshot(policy.codec.data(state), { ...redactionContext(policy, state.tenantId), storeDiffValues: true });
}

/** What changed, and why. */
export interface AuditChange {
  eventType: AuditEventType;
  before: StoredRecord | null;
  after: StoredRecord;
  reason?: string | null;
}

/** The audit record of one change, redacted. */
export async function buildAuditRecord(policy: AuditPolicy, context: GovernedContext, change: AuditChange): Promise<AuditRecord> {
  const { after, before } = change;
  const meta = context.meta ?? {};
  let diff: unknown = null;
  let snapshot: unknown = null;
  let applied = false;
  if (policy.tier === 'tier-3') {
    applied = true;
  } else {
    const operations = diffStates(before === null ? {} : policy.codec.auditState(before), policy.codec.auditState(after));
    const redacted = await redactDiff(operations, redactionContext(policy, after.tenantId));
    diff = redacted.diff;
    applied = redacted.applied;
    if (policy.storeSnapshots(after.tenantId)) {
      const snap = await snapshotOf(policy, after);
      snapshot = snap.snapshot;
      applied ||= snap.applied;
    }
  }
  return {
    id: crypto.randomUUID(),
    tenantId: after.tenantId,
    workspaceId: after.workspaceId,
    cellId: after.cellId,
    actorId: context.actor.id,
    actorType: context.actor.type,
    eventType: change.eventType,
    resourceType: policy.resourceType,
    resourceId: after.id,
    resourceVersion: after.version,
    baseVersion: before === null ? null : before.version,
    occurredAt: after.updatedAt,
    requestId: meta.requestId ?? null,
    traceId: meta.traceId ?? null,
    ip: meta.ip ?? null,
    userAgent: meta.userAgent ?? null,
    changeKind: diff === null && snapshot !== null ? 'snapshot' : 'diff',
    diff,
    snapshot,
    redactionApplied: applied,
    tags: null,
    reason: change.reason ?? null,
  };
}
