/**
 * The tables of the verifiable audit log (docs/verifiable-history.md#storage), one log per tenant:
 *
 * - `cellgate_log_heads`: per tenant the size of the log and its right edge (the hashes of the
 *   complete subtrees that make it up, log2 n at most). The append takes this row's lock, so
 *   within a tenant leaf numbers follow commit order and have no gap (a rolled-back write gives
 *   its number back).
 * - `cellgate_log_nodes`: the hash of every complete subtree, (level, index), level 0 the leaves;
 *   a root or a proof reads O(log n) of them by primary key.
 * - `cellgate_log_leaves`: which audit record each leaf is, and its openings (the salts of its
 *   committed values, or their commitments once erased).
 * - `cellgate_log_checkpoints`: the signed checkpoints the host issued, by tenant and size.
 *
 * Nodes and leaves are append-only like the audit table (an erasure's maintenance transaction may
 * rewrite openings, nothing else does).
 */
import { sql } from 'kysely';
import { MAINTENANCE_TABLE } from './columns.ts';
import { indexName } from './identifiers.ts';
import type { SqlDialect, SqlTx } from './sql-dialect.ts';

/** Per-tenant size and right edge. */
export const LOG_HEADS_TABLE = 'cellgate_log_heads';
/** Complete subtree hashes. */
export const LOG_NODES_TABLE = 'cellgate_log_nodes';
/** Leaf → audit record, and openings. */
export const LOG_LEAVES_TABLE = 'cellgate_log_leaves';
/** Signed checkpoints. */
export const LOG_CHECKPOINTS_TABLE = 'cellgate_log_checkpoints';

/** The migration step creating the log tables (idempotent). */
export function logStep(dialect: SqlDialect) {
  const text = sql.raw(dialect.columnType('text'));
  const bigint = sql.raw(dialect.columnType('bigint'));
  const int = sql.raw(dialect.columnType('int'));
  return {
    name: 'cellgate:verifiable-log',
    checksum: `verifiable-log@1:${dialect.name}`,
    async apply(tx: SqlTx, run: { dryRun?: boolean } | undefined) {
      // A dry run reports entity tables only; this step creates shared ones.
      if (run?.dryRun) return;
      const statements = [
        sql`CREATE TABLE IF NOT EXISTS ${sql.table(LOG_HEADS_TABLE)} (tenant_id ${text} PRIMARY KEY, size ${bigint} NOT NULL, frontier ${text} NOT NULL)`,
        sql`CREATE TABLE IF NOT EXISTS ${sql.table(LOG_NODES_TABLE)} (tenant_id ${text} NOT NULL, level ${int} NOT NULL, idx ${bigint} NOT NULL,
          hash ${text} NOT NULL, PRIMARY KEY (tenant_id, level, idx))`,
        sql`CREATE TABLE IF NOT EXISTS ${sql.table(LOG_LEAVES_TABLE)} (tenant_id ${text} NOT NULL, leaf_index ${bigint} NOT NULL, audit_id ${text} NOT NULL,
          openings ${sql.raw(dialect.columnType('json'))} NOT NULL, PRIMARY KEY (tenant_id, leaf_index))`,
        sql`CREATE UNIQUE INDEX IF NOT EXISTS ${sql.id(indexName(LOG_LEAVES_TABLE, 'audit_key'))} ON ${sql.table(LOG_LEAVES_TABLE)} (tenant_id, audit_id)`,
        sql`CREATE TABLE IF NOT EXISTS ${sql.table(LOG_CHECKPOINTS_TABLE)} (tenant_id ${text} NOT NULL, size ${bigint} NOT NULL, note ${text} NOT NULL,
          created_at ${sql.raw(dialect.columnType('timestamp'))} NOT NULL, PRIMARY KEY (tenant_id, size))`,
        ...[LOG_NODES_TABLE, LOG_LEAVES_TABLE, LOG_CHECKPOINTS_TABLE].flatMap((table) => [
          ...dialect.appendOnlyAuditDdl(table),
          ...dialect.maintenanceGuardDdl(table, MAINTENANCE_TABLE),
        ]),
      ];
      for (const statement of statements) await statement.execute(tx);
    },
  };
}
