/**
 * Rate-limit counts in the database, shared by every process on it. One request costs one upsert
 * on one row, keyed by (key, window): the database serialises concurrent upserts of a row, so the
 * count is exact across processes. Expired rows go two ways: each request that starts a new row
 * deletes up to RATE_LIMIT_SWEEP_PER_NEW_ROW expired rows in the same write, so they leave at
 * least twice as fast as new ones come whatever the number of callers; and a background batch, at
 * most once per interval per process, clears what a quiet period left. The table stays about the
 * size of the callers of the current and the previous window (docs/security.md).
 * On SQLite the upsert needs the file's write lock: when another process holds it for longer than
 * a short wait, the request is counted in this process's memory instead (a per-process limit,
 * see docs/security.md), so reads neither freeze behind a writer nor pass uncounted.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import {
  MAX_RATE_LIMIT_KEY_LENGTH,
  RATE_LIMIT_CLEANUP_BATCH,
  RATE_LIMIT_CLEANUP_INTERVAL_MS,
  RATE_LIMIT_LOCK_WAIT_MS,
  RATE_LIMIT_SWEEP_PER_NEW_ROW,
} from '../../limits.ts';
import { memoryRateLimitStore } from '../memory/rate-limit.ts';
import type { RateLimitDecision, RateLimitPolicy, RateLimitStore } from '../types.ts';
import { RATE_LIMIT_TABLE } from './columns.ts';
import type { SqlDb, SqlDialect } from './sql-dialect.ts';
import { toStorageError } from './sql-errors.ts';

/** A key the table stores: short keys as they are, long ones as their SHA-256 (a row key stays small). */
function storedKey(key: string): string {
  return key.length <= MAX_RATE_LIMIT_KEY_LENGTH ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

interface Row {
  /** Fixed window: requests counted; token bucket: tokens left. */
  hits: number | string;
  allowed: number | string | boolean;
}

const t = sql.table(RATE_LIMIT_TABLE);
const ref = (column: string) => sql.ref(`${RATE_LIMIT_TABLE}.${column}`);

/**
 * Fixed window: windows are aligned to multiples of `windowMs` since the epoch (the same
 * boundaries in every process); the row of (key, window start) counts the requests in it.
 */
function fixedWindow(key: string, slot: number, policy: RateLimitPolicy, now: number) {
  return sql<Row>`INSERT INTO ${t} (rate_key, slot, hits, counted_at, expires_at, allowed) VALUES (${key}, ${slot}, 1, ${now}, ${slot + policy.windowMs}, 1)
    ON CONFLICT (rate_key, slot) DO UPDATE SET hits = ${ref('hits')} + 1,
      allowed = CASE WHEN ${ref('hits')} + 1 <= ${policy.limit} THEN 1 ELSE 0 END
    RETURNING hits, allowed`;
}

/**
 * Token bucket: one row per key (slot 0) holding the tokens left and when they were counted;
 * refill, take and verdict happen in the one upsert.
 */
function tokenBucket(dialect: SqlDialect, key: string, policy: RateLimitPolicy, now: number) {
  // Typed, or PostgreSQL infers the rate's parameter as bigint from `now - counted_at`.
  const double = sql.raw(dialect.columnType('double'));
  const level = sql`${ref('hits')} + CAST(${now} - ${ref('counted_at')} AS ${double}) * CAST(${policy.limit / policy.windowMs} AS ${double})`;
  const refilled = sql`CASE WHEN ${level} > ${policy.limit} THEN ${policy.limit} ELSE ${level} END`;
  return sql<Row>`INSERT INTO ${t} (rate_key, slot, hits, counted_at, expires_at, allowed) VALUES (${key}, 0, ${policy.limit - 1}, ${now}, ${now + policy.windowMs}, 1)
    ON CONFLICT (rate_key, slot) DO UPDATE SET
      hits = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
      allowed = CASE WHEN ${refilled} >= 1 THEN 1 ELSE 0 END,
      counted_at = ${now},
      expires_at = ${now + policy.windowMs}
    RETURNING hits, allowed`;
}

const truthy = (value: Row['allowed']) => value === true || Number(value) === 1;

/**
 * Deletes up to `limit` rows whose window ended before `now`. Row values `IN (subquery … LIMIT n)`
 * is a bounded batch on both databases; on PostgreSQL rows another deleter holds are skipped, so
 * two processes sweeping at once neither wait for nor deadlock with each other.
 */
function deleteExpired(dialect: SqlDialect, now: number, limit: number) {
  const skipLocked = sql.raw(dialect.name === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '');
  return sql`DELETE FROM ${t} WHERE (rate_key, slot) IN (SELECT rate_key, slot FROM ${t} WHERE expires_at < ${now} LIMIT ${limit}${skipLocked})`;
}

/**
 * Whether an upsert may have made a new row: a fixed window's first request, or a token bucket
 * taken from full (new, or idle for a window; a needless sweep then costs one index probe).
 */
const startedRow = (policy: RateLimitPolicy, row: Row): boolean =>
  Number(row.hits) === (policy.algorithm === 'fixed-window' ? 1 : policy.limit - 1) && truthy(row.allowed);

/**
 * The store over `db`. Each statement runs through `dialect.atomicWrite`, which takes the write
 * lock the dialect's way (SQLite waits for another process's lock without blocking the event loop).
 */
export function createSqlRateLimitStore(dialect: SqlDialect, db: SqlDb): RateLimitStore {
  let nextCleanup = 0;
  // Counts while the database's write lock is out of reach (see consume).
  const fallback = memoryRateLimitStore();

  const cleanup = (now: number) => {
    nextCleanup = now + RATE_LIMIT_CLEANUP_INTERVAL_MS;
    // Not awaited: a failed cleanup only delays the next one.
    void dialect.atomicWrite(db, (tx) => deleteExpired(dialect, now, RATE_LIMIT_CLEANUP_BATCH).execute(tx)).catch(() => undefined);
  };

  /** One upsert, plus the sweep its new row pays for, in one atomic write. */
  async function count(key: string, policy: RateLimitPolicy, now: number): Promise<Row> {
    return dialect.atomicWrite(
      db,
      async (tx) => {
        const upsert =
          policy.algorithm === 'fixed-window'
            ? fixedWindow(key, Math.floor(now / policy.windowMs) * policy.windowMs, policy, now)
            : tokenBucket(dialect, key, policy, now);
        const row = (await upsert.execute(tx)).rows[0]!;
        if (startedRow(policy, row)) await deleteExpired(dialect, now, RATE_LIMIT_SWEEP_PER_NEW_ROW).execute(tx);
        return row;
      },
      RATE_LIMIT_LOCK_WAIT_MS,
    );
  }

  async function decide(key: string, policy: RateLimitPolicy, now: number): Promise<RateLimitDecision> {
    const row = await count(key, policy, now);
    const allowed = truthy(row.allowed);
    if (allowed) return { allowed, retryAfterMs: 0 };
    if (policy.algorithm === 'fixed-window')
      return { allowed, retryAfterMs: Math.max(0, Math.floor(now / policy.windowMs) * policy.windowMs + policy.windowMs - now) };
    return { allowed, retryAfterMs: Math.ceil((1 - Number(row.hits)) / (policy.limit / policy.windowMs)) };
  }

  return {
    async consume(rawKey, policy, now) {
      if (now >= nextCleanup) cleanup(now);
      const key = storedKey(rawKey);
      try {
        return await decide(key, policy, now);
      } catch (error) {
        // Another process holds SQLite's write lock for long: count in this process instead. Reads
        // go on without waiting for a lock they do not otherwise need, and the limit still holds
        // per process (at most `limit` per window here, on top of what the shared count allowed).
        if (dialect.classify(error) === 'busy') return fallback.consume(key, policy, now);
        throw toStorageError(dialect, error);
      }
    },
  };
}
