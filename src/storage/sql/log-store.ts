/**
 * The verifiable audit log on SQL (docs/verifiable-history.md): the leaf append inside the
 * audited write's transaction, and the reads proofs, checkpoints and the verifier need.
 *
 * Append, per audit record: one upsert that locks the tenant's head row and reads its size and
 * right edge (held to commit, so leaf numbers follow commit order without gaps), then one
 * statement (PostgreSQL: a data-modifying CTE) or three (SQLite, in process) writing the leaf, the
 * subtrees it completes (one on average) and the new head.
 */
import { sql } from 'kysely';
import { base64ToBytes, bytesToBase64 } from '../../base64.ts';
import { commitLeaf, sealErased, type LeafOpenings } from '../merkle/leaf.ts';
import { appendLeaf, type StoredNode } from '../merkle/tree.ts';
import type { AuditRecord, LogCheckpoint, LogLeafEntry, LogStore } from '../types.ts';
import { AUDIT_TABLE } from './columns.ts';
import { decodeAudit, type Row } from './codec.ts';
import { LOG_CHECKPOINTS_TABLE, LOG_HEADS_TABLE, LOG_LEAVES_TABLE, LOG_NODES_TABLE } from './log-schema.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { mapErrors } from './sql-errors.ts';

const decodeFrontier = (text: string): Uint8Array[] => (text === '' ? [] : text.split(',').map(base64ToBytes));
const encodeFrontier = (hashes: readonly Uint8Array[]): string => hashes.map(bytesToBase64).join(',');

/** Appends the leaf of `record` to its tenant's log, in the open transaction `tx`. */
export async function appendLogLeaf(dialect: SqlDialect, tx: SqlDb | SqlTx, record: AuditRecord): Promise<void> {
  const leaf = commitLeaf(record);
  const heads = sql.table(LOG_HEADS_TABLE);
  const { rows } = await sql<{ size: string | number; frontier: string }>`INSERT INTO ${heads} (tenant_id, size, frontier) VALUES (${record.tenantId}, 0, '')
    ON CONFLICT (tenant_id) DO UPDATE SET size = ${heads}.size RETURNING size, frontier`.execute(tx);
  const size = Number(rows[0]!.size);
  const step = appendLeaf(size, decodeFrontier(rows[0]!.frontier), leaf.hash);
  const nodeRows = sql.join(step.nodes.map((node) => sql`(${record.tenantId}, ${node.level}, ${node.index}, ${bytesToBase64(node.hash)})`));
  const insertNodes = sql`INSERT INTO ${sql.table(LOG_NODES_TABLE)} (tenant_id, level, idx, hash) VALUES ${nodeRows}`;
  const insertLeaf = sql`INSERT INTO ${sql.table(LOG_LEAVES_TABLE)} (tenant_id, leaf_index, audit_id, openings)
    VALUES (${record.tenantId}, ${size}, ${record.id}, ${dialect.encode('json', leaf.openings)})`;
  const updateHead = sql`UPDATE ${heads} SET size = ${size + 1}, frontier = ${encodeFrontier(step.frontier)} WHERE tenant_id = ${record.tenantId}`;
  if (dialect.name === 'postgres') {
    // One round trip for the three writes (the append must cost little beside the write it logs).
    await sql`WITH head AS (${updateHead}), leaf AS (${insertLeaf}) ${insertNodes}`.execute(tx);
  } else {
    await insertLeaf.execute(tx);
    await insertNodes.execute(tx);
    await updateHead.execute(tx);
  }
}

/**
 * Before an erasure rewrites an audit record's change: the openings of its leaf trade the salt of
 * each value it removes for that value's commitment, so the leaf (and every proof) stays valid
 * and no salt of an erased value is left. Runs in the erasure's maintenance transaction.
 */
export async function sealLeafOpenings(
  dialect: SqlDialect,
  tx: SqlTx,
  tenantId: string,
  auditId: string,
  change: { diff: unknown; snapshot: unknown },
): Promise<void> {
  const { rows } = await sql<Row>`SELECT a.diff, a.snapshot, l.openings FROM ${sql.table(AUDIT_TABLE)} a
    JOIN ${sql.table(LOG_LEAVES_TABLE)} l ON l.tenant_id = a.tenant_id AND l.audit_id = a.id
    WHERE a.id = ${auditId} AND a.tenant_id = ${tenantId}`.execute(tx);
  const row = rows[0];
  if (row === undefined) return;
  const before = { diff: dialect.decode('json', row.diff), snapshot: dialect.decode('json', row.snapshot) };
  const sealed = sealErased(before, change, dialect.decode('json', row.openings) as LeafOpenings);
  await sql`UPDATE ${sql.table(LOG_LEAVES_TABLE)} SET openings = ${dialect.encode('json', sealed)}
    WHERE tenant_id = ${tenantId} AND audit_id = ${auditId}`.execute(tx);
}

/** The committed log of every tenant over `db`. */
export function createSqlLogStore(dialect: SqlDialect, db: SqlDb): LogStore {
  const run = <T>(call: () => Promise<T>) => mapErrors(dialect, call);
  return {
    size: (tenantId) =>
      run(async () => {
        const { rows } = await sql<{ size: string | number }>`SELECT size FROM ${sql.table(LOG_HEADS_TABLE)} WHERE tenant_id = ${tenantId}`.execute(db);
        return rows[0] === undefined ? 0 : Number(rows[0].size);
      }),

    nodes: (tenantId, ids) =>
      run(async (): Promise<StoredNode[]> => {
        if (ids.length === 0) return [];
        // Typed, so PostgreSQL compares integers with integers (a bare parameter in VALUES is text).
        const int = sql.raw(dialect.columnType('int'));
        const bigint = sql.raw(dialect.columnType('bigint'));
        const keys = sql.join(ids.map((id) => sql`(CAST(${id.level} AS ${int}), CAST(${id.index} AS ${bigint}))`));
        const { rows } = await sql<{ level: number; idx: string | number; hash: string }>`SELECT level, idx, hash FROM ${sql.table(LOG_NODES_TABLE)}
          WHERE tenant_id = ${tenantId} AND (level, idx) IN (VALUES ${keys})`.execute(db);
        return rows.map((row) => ({ level: Number(row.level), index: Number(row.idx), hash: base64ToBytes(row.hash) }));
      }),

    leafIndex: (tenantId, auditId) =>
      run(async () => {
        const { rows } = await sql<{ leaf_index: string | number }>`SELECT leaf_index FROM ${sql.table(LOG_LEAVES_TABLE)}
          WHERE tenant_id = ${tenantId} AND audit_id = ${auditId}`.execute(db);
        return rows[0] === undefined ? null : Number(rows[0].leaf_index);
      }),

    leaves: (tenantId, from, limit) =>
      run(async (): Promise<LogLeafEntry[]> => {
        // Leaf, its stored hash and its audit record (null when retention removed it or it is missing).
        const { rows } = await sql<Row>`SELECT l.leaf_index AS log_leaf_index, l.audit_id AS log_audit_id, l.openings AS log_openings, n.hash AS log_hash, a.*
          FROM ${sql.table(LOG_LEAVES_TABLE)} l
          JOIN ${sql.table(LOG_NODES_TABLE)} n ON n.tenant_id = l.tenant_id AND n.level = 0 AND n.idx = l.leaf_index
          LEFT JOIN ${sql.table(AUDIT_TABLE)} a ON a.id = l.audit_id
          WHERE l.tenant_id = ${tenantId} AND l.leaf_index >= ${from} ORDER BY l.leaf_index LIMIT ${limit}`.execute(db);
        return rows.map((row) => ({
          index: Number(row.log_leaf_index),
          auditId: String(row.log_audit_id),
          hash: base64ToBytes(String(row.log_hash)),
          openings: dialect.decode('json', row.log_openings) as LeafOpenings,
          record: row.id === null || row.id === undefined ? null : decodeAudit(dialect, row),
        }));
      }),

    auditCount: (tenantId) =>
      run(async () => {
        const { rows } = await sql<{ n: string | number }>`SELECT count(*) AS n FROM ${sql.table(AUDIT_TABLE)} WHERE tenant_id = ${tenantId}`.execute(db);
        return Number(rows[0]!.n);
      }),

    putCheckpoint: (checkpoint) =>
      run(async () => {
        await sql`INSERT INTO ${sql.table(LOG_CHECKPOINTS_TABLE)} (tenant_id, size, note, created_at)
          VALUES (${checkpoint.tenantId}, ${checkpoint.size}, ${checkpoint.note}, ${dialect.encode('timestamp', checkpoint.createdAt)})
          ON CONFLICT (tenant_id, size) DO NOTHING`.execute(db);
      }),

    latestCheckpoint: (tenantId) =>
      run(async (): Promise<LogCheckpoint | null> => {
        const { rows } = await sql<Row>`SELECT size, note, created_at FROM ${sql.table(LOG_CHECKPOINTS_TABLE)}
          WHERE tenant_id = ${tenantId} ORDER BY size DESC LIMIT 1`.execute(db);
        const row = rows[0];
        return row === undefined
          ? null
          : { tenantId, size: Number(row.size), note: String(row.note), createdAt: dialect.decode('timestamp', row.created_at) as string };
      }),
  };
}
