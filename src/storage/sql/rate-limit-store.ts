/**
 * Rate-limit counts in the database, shared by every process on it. One request costs one upsert
 * on one row, keyed by (key, window): the database serialises concurrent upserts of a row, so the
 * count is exact across processes. Expired rows are deleted in bounded batches, at most once per
 * interval per process, so the table stays the size of the callers active in the last windows.
 * On SQLite the upsert needs the file's write lock: when another process holds it for longer than
 * a short wait, the request is let through uncounted (reads must not freeze behind a writer).
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { MAX_RATE_LIMIT_KEY_LENGTH, RATE_LIMIT_CLEANUP_BATCH, RATE_LIMIT_CLEANUP_INTERVAL_MS, RATE_LIMIT_LOCK_WAIT_MS } from '../../limits.ts';
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
 * The store over `db`. Each statement runs through `dialect.atomicWrite`, which takes the write
 * lock the dialect's way (SQLite waits for another process's lock without blocking the event loop).
 */
export function createSqlRateLimitStore(dialect: SqlDialect, db: SqlDb): RateLimitStore {
  let nextCleanup = 0;

  const cleanup = (now: number) => {
    nextCleanup = now + RATE_LIMIT_CLEANUP_INTERVAL_MS;
    // Row values `IN (subquery … LIMIT n)`: a bounded batch on both databases. Not awaited: a
    // failed cleanup only delays the next one.
    void dialect
      .atomicWrite(db, (tx) =>
        sql`DELETE FROM ${t} WHERE (rate_key, slot) IN (SELECT rate_key, slot FROM ${t} WHERE expires_at < ${now} LIMIT ${RATE_LIMIT_CLEANUP_BATCH})`.execute(
          tx,
        ),
      )
      .catch(() => undefined);
  };

  async function decide(key: string, policy: RateLimitPolicy, now: number): Promise<RateLimitDecision> {
    if (policy.algorithm === 'fixed-window') {
      const slot = Math.floor(now / policy.windowMs) * policy.windowMs;
      const { rows } = await dialect.atomicWrite(db, (tx) => fixedWindow(key, slot, policy, now).execute(tx), RATE_LIMIT_LOCK_WAIT_MS);
      const allowed = truthy(rows[0]!.allowed);
      return { allowed, retryAfterMs: allowed ? 0 : Math.max(0, slot + policy.windowMs - now) };
    }
    const { rows } = await dialect.atomicWrite(db, (tx) => tokenBucket(dialect, key, policy, now).execute(tx), RATE_LIMIT_LOCK_WAIT_MS);
    const allowed = truthy(rows[0]!.allowed);
    const tokens = Number(rows[0]!.hits);
    return { allowed, retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) / (policy.limit / policy.windowMs)) };
  }

  return {
    async consume(rawKey, policy, now) {
      if (now >= nextCleanup) cleanup(now);
      try {
        return await decide(storedKey(rawKey), policy, now);
      } catch (error) {
        // Another process holds SQLite's write lock for long: let the request through uncounted
        // rather than make every read wait for a lock it does not otherwise need.
        if (dialect.classify(error) === 'busy') return { allowed: true, retryAfterMs: 0 };
        throw toStorageError(dialect, error);
      }
    },
  };
}
