/**
 * The erasure operations of the memory driver (docs/erasure.md). Reads see the committed tables
 * and the transaction's staged writes; rewrites of committed history are queued on the staged
 * tables' `maintenance` list and applied on commit, so a transaction that throws changes nothing.
 */
import { sealErased } from '../merkle/leaf.ts';
import type { ErasureOperations, StoredRecord } from '../types.ts';
import type { MemoryEventStore } from './events.ts';
import { versionKey, type Tables } from './index.ts';
import { inScope } from './list.ts';

const copy = <T>(value: T): T => structuredClone(value);

/** The erasure operations of one maintenance transaction over `base`, staging into `staged`. */
export function memoryErasureOperations(base: Tables, staged: Tables, events: MemoryEventStore): ErasureOperations {
  return {
    async listVersionStates(model, scope, id, range) {
      // Probes the versions of the range in order: work bounded by the range, not by the whole map.
      const states: StoredRecord[] = [];
      for (let version = range.after + 1; version <= range.through && states.length < range.limit; version += 1) {
        const key = versionKey(model.resourceType, id, version);
        const state = staged.versions.get(key) ?? base.versions.get(key);
        if (state !== undefined && inScope(state, scope)) states.push(copy(state));
      }
      return states;
    },

    async replaceVersionState(model, state) {
      const key = versionKey(model.resourceType, state.id, state.version);
      const stored = copy(state);
      if (staged.versions.has(key)) staged.versions.set(key, stored);
      else staged.maintenance.push((tables) => void (tables.versions.has(key) && tables.versions.set(key, stored)));
    },

    async replaceAuditChange(tenantId, auditId, change) {
      const rewrite = (tables: Tables) => {
        const position = tables.auditById.get(auditId);
        const record = position === undefined ? undefined : tables.audit[position];
        if (record === undefined || record.tenantId !== tenantId) return;
        tables.audit[position!] = { ...record, diff: copy(change.diff), snapshot: copy(change.snapshot) };
        // The verifiable log keeps the leaf: each removed value's salt gives way to its commitment.
        const openings = base.log.openings(tenantId, auditId);
        if (openings !== null) base.log.replaceOpenings(tenantId, auditId, sealErased(record, change, openings));
        const leaf = tables.logLeaves.find((staged) => staged.auditId === auditId);
        if (leaf !== undefined) leaf.openings = sealErased(record, change, leaf.openings);
      };
      if (staged.auditById.has(auditId)) rewrite(staged);
      else staged.maintenance.push(rewrite);
    },

    async listRecordEvents(query) {
      return events.recordEvents(query);
    },

    async replaceEvent(event) {
      const stored = copy(event);
      staged.maintenance.push(() => events.replace(stored));
    },
  };
}
