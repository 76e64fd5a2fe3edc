/**
 * Models and record builders of the storage conformance suite. Every case works in a tenant of
 * its own (a fresh UUID), so cases never see each other's rows and need no cleanup between them.
 */
import type { AuditRecord, EntityStorageModel, RecordScope, StorageDriver, StorageSession, StoredRecord } from '../storage/types.ts';
import type { Actor, GovernedContext, RequestMeta } from '../governed/types.ts';

/** A workspace-shared entity with one field of every type and format. */
export const invoiceModel: EntityStorageModel = {
  resourceType: 'conformance.Invoice@v1',
  table: 'conformance_invoice_v1',
  scope: 'workspace-shared',
  fields: [
    { name: 'number', type: 'string', nullable: false },
    { name: 'customer_name', type: 'string', nullable: false },
    { name: 'amount', type: 'number', nullable: false },
    { name: 'quantity', type: 'integer', nullable: false },
    { name: 'paid', type: 'boolean', nullable: false },
    { name: 'due_date', type: 'string', format: 'date-time', nullable: true },
    { name: 'customer_id', type: 'string', format: 'uuid', nullable: true },
    { name: 'email', type: 'string', format: 'email', nullable: true },
    { name: 'lines', type: 'array', nullable: true },
    { name: 'details', type: 'object', nullable: true },
    { name: 'note', type: 'string', nullable: true },
  ],
  indexedFields: ['number', 'customer_name', 'amount', 'quantity', 'paid', 'due_date', 'created_at', 'updated_at'],
};

/** The next major of the same entity: its own table, other fields. */
export const invoiceV2Model: EntityStorageModel = {
  resourceType: 'conformance.Invoice@v2',
  table: 'conformance_invoice_v2',
  scope: 'workspace-shared',
  fields: [
    { name: 'number', type: 'string', nullable: false },
    { name: 'total_cents', type: 'integer', nullable: false },
  ],
  indexedFields: ['total_cents', 'created_at', 'updated_at'],
};

/** A cell-isolated entity. */
export const taskModel: EntityStorageModel = {
  resourceType: 'conformance.Task@v1',
  table: 'conformance_task_v1',
  scope: 'cell-isolated',
  fields: [
    { name: 'title', type: 'string', nullable: false },
    { name: 'done', type: 'boolean', nullable: false },
  ],
  indexedFields: ['title', 'created_at', 'updated_at'],
};

/** A system-global entity (no workspace). */
export const settingModel: EntityStorageModel = {
  resourceType: 'conformance.Setting@v1',
  table: 'conformance_setting_v1',
  scope: 'system-global',
  fields: [{ name: 'value', type: 'string', nullable: false }],
  indexedFields: ['value', 'created_at', 'updated_at'],
};

/** Every model of the suite, migrated once before the cases. */
export const conformanceModels: readonly EntityStorageModel[] = [invoiceModel, invoiceV2Model, taskModel, settingModel];

/** A fresh workspace scope in a tenant of its own. */
export function freshScope(cell = false): RecordScope {
  return { tenantId: crypto.randomUUID(), workspaceId: crypto.randomUUID(), cellId: cell ? crypto.randomUUID() : null };
}

let clock = Date.parse('2026-01-01T00:00:00.000Z');
/** Strictly increasing ISO timestamps, so creation order is also time order. */
export function nextTime(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

/** Every invoice field, with defaults, so records read back equal to what was written. */
export function invoiceFields(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    number: 'INV-1',
    customer_name: 'Acme',
    amount: 100.5,
    quantity: 1,
    paid: false,
    due_date: null,
    customer_id: null,
    email: null,
    lines: null,
    details: null,
    note: null,
    ...overrides,
  };
}

/** A version-1 record in `scope` with `fields`. */
export function newRecord(scope: RecordScope, fields: Record<string, unknown>, id: string = crypto.randomUUID()): StoredRecord {
  const at = nextTime();
  return { ...scope, id, version: 1, createdAt: at, createdBy: 'actor-1', updatedAt: at, updatedBy: 'actor-1', deletedAt: null, deletedBy: null, fields };
}

/** The record at its next version with `fields` merged in. */
export function nextVersion(record: StoredRecord, fields: Record<string, unknown> = {}): StoredRecord {
  return { ...record, version: record.version + 1, updatedAt: nextTime(), updatedBy: 'actor-2', fields: { ...record.fields, ...fields } };
}

/** An audit record for `record` at its version. */
export function auditFor(record: StoredRecord, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: crypto.randomUUID(),
    tenantId: record.tenantId,
    workspaceId: record.workspaceId,
    cellId: record.cellId,
    actorId: 'actor-1',
    actorType: 'user',
    eventType: record.version === 1 ? 'entity.created' : 'entity.updated',
    resourceType: invoiceModel.resourceType,
    resourceId: record.id,
    resourceVersion: record.version,
    baseVersion: record.version === 1 ? null : record.version - 1,
    occurredAt: record.updatedAt,
    requestId: 'req-1',
    traceId: null,
    ip: '127.0.0.1',
    userAgent: 'conformance',
    changeKind: 'diff',
    diff: [{ op: 'replace', path: '/amount', value: 1 }],
    snapshot: null,
    redactionApplied: true,
    tags: null,
    reason: null,
    changeSetId: null,
    ...overrides,
  };
}

/** Inserts records (and their version states and audit records, as the core does) in one transaction. */
export async function seed(driver: StorageDriver, model: EntityStorageModel, records: StoredRecord[]): Promise<void> {
  await driver.transaction(async (session: StorageSession) => {
    for (const record of records) {
      await session.insert(model, record);
      await session.putVersionState(model, record);
    }
  });
}

/**
 * A context of the conformance suites: a workspace admin with the audit permissions (and `extra`
 * ones), in a fresh tenant, workspace and cell, with the request metadata given.
 */
export function workspaceAdminContext(extra: readonly string[], meta: RequestMeta): GovernedContext {
  const workspaceId = crypto.randomUUID();
  const actor: Actor = {
    id: crypto.randomUUID(),
    type: 'user',
    tenantId: crypto.randomUUID(),
    roles: [],
    workspaces: { [workspaceId]: ['admin'] },
    permissions: ['audit:read', 'audit:restore', ...extra],
  };
  return { actor, scope: { workspaceId, cellId: crypto.randomUUID() }, meta };
}
