/** The page size of an audit export, shared by every driver. */
import { AUDIT_EXPORT_PAGE_SIZE } from '../limits.ts';
import type { AuditExportQuery } from './types.ts';

/** Records per read of an export: the query's `pageSize`, at least 1 and at most {@link AUDIT_EXPORT_PAGE_SIZE}. */
export function exportPageSize(query: AuditExportQuery): number {
  const size = Math.floor(query.pageSize ?? AUDIT_EXPORT_PAGE_SIZE);
  return Number.isFinite(size) ? Math.min(AUDIT_EXPORT_PAGE_SIZE, Math.max(1, size)) : AUDIT_EXPORT_PAGE_SIZE;
}
