/**
 * History-reach cases of the storage conformance suite (docs/decisions/B08.md): `listAudit`,
 * `exportAudit` and `events.listEvents` with a `reach` return exactly the records one of its
 * grants admits (resource type, then workspace; `workspaceIds: null` admits every workspace and
 * tenant-level records). The filter runs before paging: pages of two stay full across records out
 * of reach, cursors resume right, and an empty reach returns nothing.
 */
import { expect } from 'vitest';
import type { AuditRecord, DomainEvent, HistoryReach, RecordScope, StorageDriver } from '../storage/types.ts';
import { auditFor, freshScope, newRecord } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

const OPEN = 'conformance_reach.Open@v1';
const CLOSED = 'conformance_reach.Closed@v1';
const GLOBAL = 'conformance_reach.Global@v1';

/** One record per (type, scope), interleaved so every record in reach has one out of reach beside it. */
function layout(a: RecordScope): Array<{ type: string; scope: RecordScope }> {
  const b: RecordScope = { ...a, workspaceId: crypto.randomUUID() };
  const tenantLevel: RecordScope = { ...a, workspaceId: null };
  return [
    { type: OPEN, scope: a },
    { type: CLOSED, scope: a },
    { type: OPEN, scope: b },
    { type: GLOBAL, scope: tenantLevel },
    { type: OPEN, scope: a },
    { type: CLOSED, scope: b },
    { type: GLOBAL, scope: tenantLevel },
    { type: OPEN, scope: a },
  ];
}

/** The domain event of an audit record. */
function eventOf(record: AuditRecord): DomainEvent {
  return {
    id: crypto.randomUUID(),
    type: 'entity.created',
    tenantId: record.tenantId,
    workspaceId: record.workspaceId,
    cellId: record.cellId,
    resourceType: record.resourceType,
    resourceId: record.resourceId,
    version: 1,
    baseVersion: null,
    occurredAt: record.occurredAt,
    actor: { id: record.actorId, type: 'user' },
    requestId: null,
    traceId: null,
    auditId: record.id,
    change: { kind: 'snapshot', diff: null, snapshot: null, redactionApplied: false },
  };
}

/** Every audit record of `reach`, newest first, read in pages of two; the size of each page too. */
async function listed(driver: StorageDriver, tenantId: string, reach: HistoryReach): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await driver.listAudit({ tenantId, limit: 2, reach, ...(cursor === undefined ? {} : { cursor }) });
    ids.push(...page.records.map((record) => record.id));
    sizes.push(page.records.length);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && sizes.length < 20);
  return { ids, sizes };
}

async function exported(driver: StorageDriver, tenantId: string, reach: HistoryReach): Promise<string[]> {
  const ids: string[] = [];
  for await (const record of driver.exportAudit({ tenantId, from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z', pageSize: 2, reach })) {
    ids.push(record.id);
  }
  return ids;
}

/** The audit ids of every event of `reach`, oldest first, read in pages of two; the size of each page too. */
async function fed(driver: StorageDriver, tenantId: string, reach: HistoryReach): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let after: string | undefined;
  for (let round = 0; round < 20; round += 1) {
    const events = await driver.events.listEvents({ tenantId, limit: 2, reach, ...(after === undefined ? {} : { after }) });
    if (events.length === 0) break;
    ids.push(...events.map((event) => event.auditId));
    sizes.push(events.length);
    after = events[events.length - 1]!.cursor;
  }
  return { ids, sizes };
}

/** History-reach cases, registered inside the suite's describe. */
export function reachConformanceCases(driver: Current): void {
  describe('history reach: audit pages, export and feed filtered before paging', () => {
    it('returns exactly the records a reach admits, with full pages and right cursors on every history read', async () => {
      const a = freshScope();
      const records = layout(a).map(({ type, scope }) => auditFor(newRecord(scope, {}), { resourceType: type }));
      await driver().transaction(async (session) => {
        for (const record of records) {
          await session.appendAudit(record);
          await session.appendEvent(eventOf(record));
        }
      });
      const { tenantId } = a;
      const admitted = (reach: HistoryReach) =>
        records
          .filter((record) =>
            reach.some(
              (grant) =>
                grant.resourceTypes.includes(record.resourceType) &&
                (grant.workspaceIds === null || (record.workspaceId !== null && grant.workspaceIds.includes(record.workspaceId))),
            ),
          )
          .map((record) => record.id);
      const reaches: HistoryReach[] = [
        // One type in one workspace: 3 of 8 records, each next to one out of reach.
        [{ resourceTypes: [OPEN], workspaceIds: [a.workspaceId!] }],
        // A type everywhere (tenant-level records included) plus another type in one workspace.
        [
          { resourceTypes: [GLOBAL], workspaceIds: null },
          { resourceTypes: [OPEN, CLOSED], workspaceIds: [a.workspaceId!] },
        ],
        // A type the records do not have, a grant with no workspace, and the empty reach.
        [{ resourceTypes: ['conformance_reach.Unknown@v1'], workspaceIds: null }],
        [{ resourceTypes: [OPEN], workspaceIds: [] }],
        [],
      ];
      for (const reach of reaches) {
        const expected = admitted(reach);
        const full = expected.length === 0 ? [0] : [...Array(Math.ceil(expected.length / 2)).keys()].map((page) => Math.min(2, expected.length - page * 2));
        const list = await listed(driver(), tenantId, reach);
        expect({ reach, ids: list.ids, sizes: list.sizes }).toEqual({ reach, ids: [...expected].reverse(), sizes: full });
        expect({ reach, ids: await exported(driver(), tenantId, reach) }).toEqual({ reach, ids: expected });
        const feed = await fed(driver(), tenantId, reach);
        expect({ reach, ids: feed.ids, sizes: feed.sizes }).toEqual({ reach, ids: expected, sizes: expected.length === 0 ? [] : full });
      }
      // A reach of every type everywhere admits every record.
      expect((await listed(driver(), tenantId, [{ resourceTypes: [OPEN, CLOSED, GLOBAL], workspaceIds: null }])).ids).toHaveLength(records.length);
    });
  });
}
