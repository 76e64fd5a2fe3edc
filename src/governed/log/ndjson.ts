/**
 * A tenant's log as NDJSON, and back (docs/verifiable-history.md#verifying): `exportLogNdjson`
 * writes one line per leaf (`{ index, auditId, hash, openings, record }`, hash in base64) and a
 * last line with the host's latest checkpoint; `ndjsonLogSource` reads such lines into a
 * {@link LogStore} that `verifyLog` checks offline, with no database. The export reads the log in
 * batches; the source holds the export in memory (about the size of the file).
 */
import { base64ToBytes, bytesToBase64 } from '../../base64.ts';
import { VERIFY_LOG_BATCH } from '../../limits.ts';
import { appendLeaf, nodeKey } from '../../storage/merkle/tree.ts';
import type { AuditRecord, LogCheckpoint, LogLeafEntry, LogStore } from '../../storage/types.ts';
import { VerifyLogError } from './verify.ts';

/** The NDJSON lines of a tenant's log, oldest leaf first, then the host's latest checkpoint. */
export async function* exportLogNdjson(log: LogStore, tenantId: string): AsyncGenerator<string> {
  const size = await log.size(tenantId);
  for (let from = 0; from < size; from += VERIFY_LOG_BATCH) {
    for (const leaf of await log.leaves(tenantId, from, Math.min(VERIFY_LOG_BATCH, size - from))) {
      yield `${JSON.stringify({ index: leaf.index, auditId: leaf.auditId, hash: bytesToBase64(leaf.hash), openings: leaf.openings, record: leaf.record })}\n`;
    }
  }
  const latest = await log.latestCheckpoint(tenantId);
  if (latest !== null) yield `${JSON.stringify({ checkpoint: latest })}\n`;
}

/** A {@link LogStore} of one tenant's exported log (lines of {@link exportLogNdjson}); throws {@link VerifyLogError} on a malformed line. */
export async function ndjsonLogSource(lines: Iterable<string> | AsyncIterable<string>): Promise<LogStore> {
  const leaves: LogLeafEntry[] = [];
  let latest: LogCheckpoint | null = null;
  let tenant: string | null = null;
  let number = 0;
  for await (const chunk of lines) {
    for (const line of chunk.split('\n')) {
      number += 1;
      if (line.trim() === '') continue;
      let value: { index?: unknown; auditId?: unknown; hash?: unknown; openings?: unknown; record?: AuditRecord | null; checkpoint?: LogCheckpoint };
      try {
        value = JSON.parse(line);
      } catch {
        throw new VerifyLogError(`line ${number} of the export is not JSON`);
      }
      if (value.checkpoint !== undefined) {
        latest = value.checkpoint;
        continue;
      }
      if (typeof value.index !== 'number' || typeof value.auditId !== 'string' || typeof value.hash !== 'string' || typeof value.openings !== 'object')
        throw new VerifyLogError(`line ${number} of the export is not a leaf`);
      if (value.record) tenant ??= value.record.tenantId;
      leaves.push({
        index: value.index,
        auditId: value.auditId,
        hash: base64ToBytes(value.hash),
        openings: value.openings as LogLeafEntry['openings'],
        record: value.record ?? null,
      });
    }
  }
  // The stored nodes of the export are rebuilt from its leaf hashes (what the database would hold).
  const nodes = new Map<string, Uint8Array>();
  let frontier: Uint8Array[] = [];
  leaves.forEach((leaf, position) => {
    const step = appendLeaf(position, frontier, leaf.hash);
    for (const node of step.nodes) nodes.set(nodeKey(node), node.hash);
    frontier = step.frontier;
  });
  const mine = (tenantId: string) => tenant === null || tenantId === tenant;
  return {
    size: async (tenantId) => (mine(tenantId) ? leaves.length : 0),
    nodes: async (tenantId, ids) => (mine(tenantId) ? ids.flatMap((id) => (nodes.has(nodeKey(id)) ? [{ ...id, hash: nodes.get(nodeKey(id))! }] : [])) : []),
    leafIndex: async (tenantId, auditId) => (mine(tenantId) ? (leaves.find((leaf) => leaf.auditId === auditId)?.index ?? null) : null),
    leaves: async (tenantId, from, limit) => (mine(tenantId) ? leaves.slice(from, from + limit) : []),
    auditCount: async (tenantId) => (mine(tenantId) ? leaves.filter((leaf) => leaf.record !== null).length : 0),
    putCheckpoint: async () => {
      throw new VerifyLogError('an exported log is read-only');
    },
    latestCheckpoint: async (tenantId) => (mine(tenantId) ? latest : null),
  };
}
