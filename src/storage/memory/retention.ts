/**
 * The history-removing operations of the memory driver (retention, the purge of soft-deleted
 * records, outbox trimming). They read committed history and stage each removal as a change
 * applied on commit, so a maintenance transaction that throws leaves no trace. Audit records are
 * removed by leaving a hole at their position: positions are the audit cursors, so every cursor
 * handed out before keeps its meaning, and the per-record index drops the position.
 */
import type { AuditRecord, EntityStorageModel, RemovedRange, RetentionOperations, StoredRecord } from '../types.ts';
import type { AuditTimeIndex } from './audit-export.ts';
import type { MemoryEventStore } from './events.ts';

/** The committed tables retention reads and changes (the memory driver's own). */
export interface MemoryHistory {
  readonly records: Map<string, Map<string, StoredRecord>>;
  readonly audit: AuditRecord[];
  readonly auditById: Map<string, number>;
  readonly auditByResource: Map<string, number[]>;
  /** The committed audit records of each tenant in time order (the export's index). */
  readonly auditByTime: AuditTimeIndex | null;
  readonly versions: Map<string, StoredRecord>;
}

/** What the operations need from the driver. */
export interface MemoryRetentionOptions {
  base: MemoryHistory;
  events: MemoryEventStore;
  /** Stages a change to committed history, applied on commit. */
  stage(change: () => void): void;
  versionKey(resourceType: string, id: string, version: number): string;
  resourceKey(tenantId: string, resourceType: string, resourceId: string): string;
}

function rangeOf(times: string[]): RemovedRange {
  const sorted = [...times].sort();
  return { count: sorted.length, oldest: sorted[0] ?? null, newest: sorted[sorted.length - 1] ?? null };
}

/** Builds the retention operations of one maintenance transaction. */
export function createMemoryRetention(options: MemoryRetentionOptions): RetentionOperations {
  const { base, events, stage } = options;

  return {
    async historyTenants(after, limit) {
      const tenants = new Set<string>();
      for (const record of base.audit) if (record !== undefined && (after === null || record.tenantId > after)) tenants.add(record.tenantId);
      return [...tenants].sort().slice(0, limit);
    },

    async removeAuditBefore(tenantId, before, limit) {
      // The time index gives the oldest records directly: no walk over the rest of history.
      const taken = (base.auditByTime?.oldestBefore(tenantId, before, limit) ?? []).map((position): [number, AuditRecord] => [position, base.audit[position]!]);
      stage(() => {
        for (const [position, record] of taken) {
          delete base.audit[position];
          base.auditById.delete(record.id);
          const key = options.resourceKey(record.tenantId, record.resourceType, record.resourceId);
          const positions = base.auditByResource.get(key)?.filter((candidate) => candidate !== position) ?? [];
          if (positions.length === 0) base.auditByResource.delete(key);
          else base.auditByResource.set(key, positions);
        }
        base.auditByTime?.remove(tenantId, new Set(taken.map(([position]) => position)));
      });
      return rangeOf(taken.map(([, record]) => record.occurredAt));
    },

    async removeVersionStatesBefore(model, tenantId, before, limit) {
      const table = base.records.get(model.table);
      const found: Array<[string, StoredRecord]> = [];
      for (const [key, state] of base.versions) {
        if (state.tenantId !== tenantId || state.updatedAt >= before || key !== options.versionKey(model.resourceType, state.id, state.version)) continue;
        const record = table?.get(state.id);
        // The current version, and for a deleted record the one before the delete, stay.
        if (record !== undefined && state.version >= record.version - (record.deletedAt === null ? 0 : 1)) continue;
        found.push([key, state]);
      }
      found.sort(([, a], [, b]) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
      const taken = found.slice(0, limit);
      stage(() => {
        for (const [key] of taken) base.versions.delete(key);
      });
      return rangeOf(taken.map(([, state]) => state.updatedAt));
    },

    async trimOutbox(tenantId, before, limit, after) {
      const plan = events.trimmable(tenantId, before, limit, after);
      stage(() => events.remove(plan.ids));
      return { events: plan.ids.length, deliveries: plan.deliveries, next: plan.next };
    },

    async listDeletedBefore(model: EntityStorageModel, tenantId, before, limit) {
      const deleted = [...(base.records.get(model.table)?.values() ?? [])].filter(
        (record) => record.tenantId === tenantId && record.deletedAt !== null && record.deletedAt < before,
      );
      deleted.sort((a, b) => (a.deletedAt! < b.deletedAt! ? -1 : a.deletedAt! > b.deletedAt! ? 1 : a.id < b.id ? -1 : 1));
      return deleted.slice(0, limit).map((record) => structuredClone(record));
    },

    async removeDeletedRecord(model, record) {
      const table = base.records.get(model.table);
      const current = table?.get(record.id);
      if (current === undefined || current.tenantId !== record.tenantId || current.version !== record.version || current.deletedAt === null) return null;
      const keys: string[] = [];
      for (let version = 1; version <= current.version; version += 1) {
        const key = options.versionKey(model.resourceType, record.id, version);
        if (base.versions.has(key)) keys.push(key);
      }
      stage(() => {
        table!.delete(record.id);
        for (const key of keys) base.versions.delete(key);
      });
      return keys.length;
    },
  };
}
