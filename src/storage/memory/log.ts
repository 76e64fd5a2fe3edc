/**
 * The verifiable audit log of the memory driver (docs/verifiable-history.md): the same tree as the
 * SQL drivers keep (stored complete-subtree hashes, a right edge per tenant), in maps. A
 * transaction stages its leaves; they join the log on commit, in commit order.
 */
import { commitLeaf, type LeafOpenings } from '../merkle/leaf.ts';
import { appendLeaf, nodeKey } from '../merkle/tree.ts';
import type { AuditRecord, LogCheckpoint, LogLeafEntry, LogStore } from '../types.ts';

interface TenantLog {
  frontier: Uint8Array[];
  nodes: Map<string, Uint8Array>;
  leaves: Array<{ auditId: string; openings: LeafOpenings }>;
  byAudit: Map<string, number>;
  checkpoints: LogCheckpoint[];
}

/** A leaf a transaction staged: the record's leaf hash and openings, drawn when it was appended. */
export interface StagedLeaf {
  tenantId: string;
  auditId: string;
  hash: Uint8Array;
  openings: LeafOpenings;
}

/** The leaf of an audit record about to be staged. */
export function stageLeaf(record: AuditRecord): StagedLeaf {
  const leaf = commitLeaf(record);
  return { tenantId: record.tenantId, auditId: record.id, hash: leaf.hash, openings: leaf.openings };
}

/** Every tenant's log, committed. */
export class MemoryLog {
  private readonly tenants = new Map<string, TenantLog>();

  private tenant(tenantId: string): TenantLog {
    let log = this.tenants.get(tenantId);
    if (log === undefined) {
      log = { frontier: [], nodes: new Map(), leaves: [], byAudit: new Map(), checkpoints: [] };
      this.tenants.set(tenantId, log);
    }
    return log;
  }

  /** Appends committed leaves, in order. */
  commit(leaves: readonly StagedLeaf[]): void {
    for (const leaf of leaves) {
      const log = this.tenant(leaf.tenantId);
      const step = appendLeaf(log.leaves.length, log.frontier, leaf.hash);
      for (const node of step.nodes) log.nodes.set(nodeKey(node), node.hash);
      log.frontier = step.frontier;
      log.byAudit.set(leaf.auditId, log.leaves.length);
      log.leaves.push({ auditId: leaf.auditId, openings: structuredClone(leaf.openings) });
    }
  }

  /** Replaces the openings of an audit record's leaf (an erasure sealing the values it removed). */
  replaceOpenings(tenantId: string, auditId: string, openings: LeafOpenings): void {
    const log = this.tenants.get(tenantId);
    const index = log?.byAudit.get(auditId);
    if (log !== undefined && index !== undefined) log.leaves[index]!.openings = structuredClone(openings);
  }

  /** The openings of an audit record's leaf, or null. */
  openings(tenantId: string, auditId: string): LeafOpenings | null {
    const log = this.tenants.get(tenantId);
    const index = log?.byAudit.get(auditId);
    return log === undefined || index === undefined ? null : structuredClone(log.leaves[index]!.openings);
  }

  /** The read side, `audit(id)` finding a committed audit record. */
  store(audit: (tenantId: string, auditId: string) => AuditRecord | null, auditCount: (tenantId: string) => number): LogStore {
    return {
      size: async (tenantId) => this.tenants.get(tenantId)?.leaves.length ?? 0,
      nodes: async (tenantId, ids) => {
        const log = this.tenants.get(tenantId);
        return ids.flatMap((id) => {
          const hash = log?.nodes.get(nodeKey(id));
          return hash === undefined ? [] : [{ ...id, hash }];
        });
      },
      leafIndex: async (tenantId, auditId) => this.tenants.get(tenantId)?.byAudit.get(auditId) ?? null,
      leaves: async (tenantId, from, limit): Promise<LogLeafEntry[]> => {
        const log = this.tenants.get(tenantId);
        if (log === undefined) return [];
        return log.leaves.slice(from, from + limit).map((leaf, offset) => ({
          index: from + offset,
          auditId: leaf.auditId,
          hash: log.nodes.get(nodeKey({ level: 0, index: from + offset }))!,
          openings: structuredClone(leaf.openings),
          record: audit(tenantId, leaf.auditId),
        }));
      },
      auditCount: async (tenantId) => auditCount(tenantId),
      putCheckpoint: async (checkpoint) => {
        const log = this.tenant(checkpoint.tenantId);
        if (!log.checkpoints.some((kept) => kept.size === checkpoint.size)) log.checkpoints.push({ ...checkpoint });
      },
      latestCheckpoint: async (tenantId) => {
        const kept = this.tenants.get(tenantId)?.checkpoints ?? [];
        return kept.reduce<LogCheckpoint | null>((best, checkpoint) => (best === null || checkpoint.size > best.size ? { ...checkpoint } : best), null);
      },
    };
  }
}
