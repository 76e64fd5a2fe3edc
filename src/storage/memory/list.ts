/** Filtering, search and ordering of records for the memory driver (the semantics SQL drivers match). */
import type { ListFilter, ListQuery, RecordScope, StoredRecord } from '../types.ts';

const BASE_COLUMNS: Record<string, keyof StoredRecord> = {
  id: 'id',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  created_by: 'createdBy',
  updated_by: 'updatedBy',
  deleted_at: 'deletedAt',
  deleted_by: 'deletedBy',
};

/** The value of a snake_case field of a record, base fields included. */
export function fieldValue(record: StoredRecord, field: string): unknown {
  const base = BASE_COLUMNS[field];
  return base === undefined ? record.fields[field] : record[base];
}

/** True when the record lies in exactly this scope. */
export function inScope(record: RecordScope, scope: RecordScope): boolean {
  return record.tenantId === scope.tenantId && record.workspaceId === scope.workspaceId && record.cellId === scope.cellId;
}

/** Ordering of scalars: null/undefined first, numbers numerically, everything else as strings by code unit. */
export function compareValues(a: unknown, b: unknown): number {
  const aNull = a === null || a === undefined;
  const bNull = b === null || b === undefined;
  if (aNull || bNull) return aNull === bNull ? 0 : aNull ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function matches(record: StoredRecord, filter: ListFilter): boolean {
  const value = fieldValue(record, filter.field);
  const target = filter.value;
  switch (filter.operator) {
    case 'equals':
      return value === target;
    case 'in':
      return Array.isArray(target) && target.includes(value);
    case 'contains':
      return typeof value === 'string' && value.toLowerCase().includes(String(target).toLowerCase());
    case 'startsWith':
      return typeof value === 'string' && value.toLowerCase().startsWith(String(target).toLowerCase());
    case 'before':
    case 'lt':
      return value !== null && value !== undefined && compareValues(value, target) < 0;
    case 'after':
    case 'gt':
      return value !== null && value !== undefined && compareValues(value, target) > 0;
    case 'between': {
      if (!Array.isArray(target) || value === null || value === undefined) return false;
      return compareValues(value, target[0]) >= 0 && compareValues(value, target[1]) <= 0;
    }
  }
}

/** Applies scope, deletion, filters, search, order and the page window. */
export function runListQuery(records: Iterable<StoredRecord>, query: ListQuery): { page: StoredRecord[]; total: number } {
  const term = query.search?.term.toLowerCase();
  const selected: StoredRecord[] = [];
  for (const record of records) {
    if (!inScope(record, query.scope)) continue;
    if (!query.includeDeleted && record.deletedAt !== null) continue;
    if (!query.filters.every((filter) => matches(record, filter))) continue;
    if (term !== undefined && query.search !== undefined) {
      const hit = query.search.fields.some((field) => {
        const value = fieldValue(record, field);
        return typeof value === 'string' && value.toLowerCase().includes(term);
      });
      if (!hit) continue;
    }
    selected.push(record);
  }
  const direction = query.sort.direction === 'desc' ? -1 : 1;
  selected.sort((a, b) => direction * compareValues(fieldValue(a, query.sort.field), fieldValue(b, query.sort.field)) || compareValues(a.id, b.id));
  return { page: selected.slice(query.offset, query.offset + query.limit), total: selected.length };
}

/** Live records whose `field` holds `id` within `within` (a null workspace or cell: any), ascending by id, at most `limit`. */
export function referrersIn(records: Iterable<StoredRecord>, field: string, within: RecordScope, id: string, limit: number): StoredRecord[] {
  const found: StoredRecord[] = [];
  for (const record of records) {
    if (record.deletedAt !== null || record.fields[field] !== id || record.tenantId !== within.tenantId) continue;
    if ((within.workspaceId !== null && record.workspaceId !== within.workspaceId) || (within.cellId !== null && record.cellId !== within.cellId)) continue;
    found.push(record);
  }
  return found.sort((a, b) => compareValues(a.id, b.id)).slice(0, limit);
}
