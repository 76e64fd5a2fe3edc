/**
 * The driver-neutral reading of a {@link HistoryReach} (docs/decisions/B08.md): whether a record of
 * a resource type in a workspace is within reach. The memory driver filters with it; SQL drivers
 * write the same test as a WHERE clause (`sql/history-reach.ts`).
 */
import type { HistoryReach } from './types.ts';

/** Whether `reach` admits a history record of `resourceType` in `workspaceId` (null: tenant level). */
export function reachAdmits(reach: HistoryReach, resourceType: string, workspaceId: string | null): boolean {
  for (const grant of reach) {
    if (!grant.resourceTypes.includes(resourceType)) continue;
    if (grant.workspaceIds === null || (workspaceId !== null && grant.workspaceIds.includes(workspaceId))) return true;
  }
  return false;
}

/** Whether a record passes an optional reach filter (absent: no filter). */
export const withinOptionalReach = (reach: HistoryReach | undefined, resourceType: string, workspaceId: string | null): boolean =>
  reach === undefined || reachAdmits(reach, resourceType, workspaceId);
