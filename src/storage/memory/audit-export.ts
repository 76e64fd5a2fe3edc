/**
 * The memory driver's audit export: a per-tenant index of audit positions ordered by
 * (`occurredAt`, position), and the keyset iteration over it. Each page re-finds its start by
 * binary search from the last (occurredAt, position) returned, so appends during an export (even
 * back-dated ones, which land in the middle of the index) never shift or repeat what comes next.
 */
import { exportPageSize } from '../audit-export-page.ts';
import { withinOptionalReach } from '../history-reach.ts';
import type { AuditExportQuery, AuditRecord } from '../types.ts';
import { lowerBound } from './lower-bound.ts';

/** Where an export stopped: the last record it looked at. */
interface Keyset {
  at: string;
  position: number;
}

/** Audit positions per tenant, in (occurredAt, position) order. */
export class AuditTimeIndex {
  private readonly byTenant = new Map<string, number[]>();

  constructor(private readonly audit: readonly AuditRecord[]) {}

  /** Adds the record at `position` (the newest position so far). */
  add(position: number): void {
    const record = this.audit[position]!;
    let list = this.byTenant.get(record.tenantId);
    if (list === undefined) {
      list = [];
      this.byTenant.set(record.tenantId, list);
    }
    const last = list[list.length - 1];
    // Records mostly arrive in time order: appending is the common case, a back-dated one is inserted.
    if (last === undefined || this.audit[last]!.occurredAt <= record.occurredAt) list.push(position);
    else
      list.splice(
        lowerBound(list, (other) => this.audit[other]!.occurredAt <= record.occurredAt),
        0,
        position,
      );
  }

  /** Positions of the tenant's oldest records that occurred before `before`, oldest first, at most `limit` (retention reads them). */
  oldestBefore(tenantId: string, before: string, limit: number): number[] {
    const list = this.byTenant.get(tenantId) ?? [];
    return list.slice(
      0,
      Math.min(
        limit,
        lowerBound(list, (position) => this.audit[position]!.occurredAt < before),
      ),
    );
  }

  /** Forgets removed positions of a tenant (retention leaves holes in the audit array). */
  remove(tenantId: string, positions: ReadonlySet<number>): void {
    const list = this.byTenant.get(tenantId);
    if (list !== undefined)
      this.byTenant.set(
        tenantId,
        list.filter((position) => !positions.has(position)),
      );
  }

  /** The next page of matching records after `keyset` (from the range start when absent), and where it stopped. */
  page(query: AuditExportQuery, keyset: Keyset | undefined, size: number): { records: AuditRecord[]; keyset: Keyset | undefined } {
    const list = this.byTenant.get(query.tenantId) ?? [];
    const audit = this.audit;
    const after = keyset;
    let index =
      after === undefined
        ? lowerBound(list, (position) => audit[position]!.occurredAt < query.from)
        : lowerBound(list, (position) => {
            const at = audit[position]!.occurredAt;
            return at < after.at || (at === after.at && position <= after.position);
          });
    const records: AuditRecord[] = [];
    // The scan is bounded too, so a filter that matches little still gives way between pages.
    for (let scanned = 0; index < list.length && records.length < size && scanned < size * 4; index += 1, scanned += 1) {
      const position = list[index]!;
      const record = audit[position]!;
      if (record.occurredAt >= query.to) return { records, keyset: undefined };
      keyset = { at: record.occurredAt, position };
      if (query.resourceType !== undefined && record.resourceType !== query.resourceType) continue;
      if (query.workspaceIds !== undefined && (record.workspaceId === null || !query.workspaceIds.includes(record.workspaceId))) continue;
      if (!withinOptionalReach(query.reach, record.resourceType, record.workspaceId)) continue;
      records.push(structuredClone(record));
    }
    return { records, keyset: index < list.length ? keyset : undefined };
  }
}

/** {@link StorageDriver.exportAudit} over a memory driver's committed audit records. */
export async function* exportFromIndex(index: AuditTimeIndex, query: AuditExportQuery): AsyncGenerator<AuditRecord> {
  const size = exportPageSize(query);
  let keyset: Keyset | undefined;
  for (let first = true; first || keyset !== undefined; first = false) {
    const page = index.page(query, keyset, size);
    keyset = page.keyset;
    yield* page.records;
  }
}
