/**
 * The memory side of an online upgrade between majors (docs/decisions/B40.md). The walk reads the
 * committed table plus the transaction's staged rows; it selects the next `limit` ids with one
 * pass over the table (memory is for tests and demos: no index to range-read).
 */
import type { EntityStorageModel, StoredRecord, UpgradeOperations } from '../types.ts';
import type { Tables } from './index.ts';

/** The upgrade operations over the committed `base` tables and the transaction's `staged` ones. */
export function memoryUpgradeOperations(base: Tables, staged: Tables | null): UpgradeOperations {
  return {
    async scanRecords(model: EntityStorageModel, after: string | null, limit: number): Promise<StoredRecord[]> {
      const committed = base.records.get(model.table) ?? new Map<string, StoredRecord>();
      const pending = staged?.records.get(model.table);
      const merged = pending === undefined || pending.size === 0 ? committed : new Map([...committed, ...pending]);
      const ids = [...merged.keys()].filter((id) => after === null || id > after).sort();
      return ids.slice(0, limit).map((id) => structuredClone(merged.get(id)!));
    },
    async getProgress(name: string): Promise<string | null> {
      return staged?.upgrades.get(name) ?? base.upgrades.get(name) ?? null;
    },
    async putProgress(name: string, value: string): Promise<void> {
      if (staged === null) throw new Error('memoryStorage: writes need a transaction');
      staged.upgrades.set(name, value);
    },
  };
}
