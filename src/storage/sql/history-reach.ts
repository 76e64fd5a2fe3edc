/**
 * A {@link HistoryReach} as one SQL condition over the `resource_type` and `workspace_id` columns
 * of the audit and outbox tables: `(resource_type IN (…) [AND workspace_id IN (…)]) OR …`, one
 * term per grant, `1 = 0` for an empty reach. Its size is bounded by the core
 * (`HISTORY_REACH_MAX_TERMS` of `limits.ts`), so the statement stays small.
 */
import { sql, type RawBuilder } from 'kysely';
import type { HistoryReach } from '../types.ts';

/** The WHERE condition of `reach`. */
export function reachCondition(reach: HistoryReach): RawBuilder<unknown> {
  const terms: RawBuilder<unknown>[] = [];
  for (const { resourceTypes, workspaceIds } of reach) {
    if (resourceTypes.length === 0 || workspaceIds?.length === 0) continue;
    const types = sql`${sql.ref('resource_type')} IN (${sql.join(resourceTypes.map((type) => sql`${type}`))})`;
    terms.push(workspaceIds === null ? types : sql`(${types} AND ${sql.ref('workspace_id')} IN (${sql.join(workspaceIds.map((id) => sql`${id}`))}))`);
  }
  return terms.length === 0 ? sql`1 = 0` : sql`(${sql.join(terms, sql` OR `)})`;
}
