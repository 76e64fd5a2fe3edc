/**
 * The replicas of one `postgresStorage` (B37): which one serves a read, and whether it may.
 *
 * A replica is in rotation while its last check (at most REPLICA_HEALTH_TTL_MS old) found it
 * reachable and at most `maxLagMs` behind; a failing replica is out for REPLICA_RETRY_MS, then a
 * read tries it again. A read with a token takes a replica whose replay position has passed the
 * token, checking again every few milliseconds up to `waitMs`; none in time means the primary.
 * Reads go round-robin over the replicas in rotation.
 */
import { sql } from 'kysely';
import { REPLICA_HEALTH_TTL_MS, REPLICA_RETRY_MS } from '../../../limits.ts';
import type { SqlDb } from '../../sql/index.ts';
import type { StorageDriver } from '../../types.ts';
import { lsnValue } from './lsn.ts';

/** One replica: its driver (reads only) and what the last check found. */
interface Replica {
  readonly driver: StorageDriver;
  readonly db: SqlDb;
  /** Replay position of the last check, as a number. */
  replayed: bigint;
  /** Milliseconds behind the primary at the last check. */
  lagMs: number;
  checkedAt: number;
  /** Out of rotation until this instant (a failure). */
  downUntil: number;
}

/** Settings of a {@link ReplicaSet}. */
export interface ReplicaSetOptions {
  maxLagMs: number;
  waitMs: number;
  /** Clock, for tests of the rotation. @default Date.now */
  now?: () => number;
}

/** Picks the replica of a read, or none (the primary then serves it). */
export interface ReplicaSet {
  /** A replica for a read; with a token, one that has replayed past it (bounded wait). */
  pick(token: string | undefined): Promise<StorageDriver | undefined>;
  /** Takes a replica whose read failed out of rotation. */
  failed(driver: StorageDriver): void;
  close(): Promise<void>;
}

// Lag is 0 when everything received is replayed (an idle primary sends nothing, and the time
// since the last replayed transaction would otherwise grow without any lag at all).
const HEALTH = sql<{ replayed: string | null; lag_ms: number | null }>`SELECT pg_last_wal_replay_lsn()::text AS replayed,
  CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
       ELSE (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 END AS lag_ms`;

const POLL_MS = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The set over these replica drivers (each with its Kysely instance for the health query). */
export function createReplicaSet(members: ReadonlyArray<{ driver: StorageDriver; db: SqlDb }>, options: ReplicaSetOptions): ReplicaSet {
  const now = options.now ?? Date.now;
  const replicas: Replica[] = members.map(({ driver, db }) => ({
    driver,
    db,
    replayed: -1n,
    lagMs: Number.POSITIVE_INFINITY,
    checkedAt: -Infinity,
    downUntil: 0,
  }));
  let next = 0;

  async function check(replica: Replica): Promise<void> {
    try {
      const { rows } = await HEALTH.execute(replica.db);
      const row = rows[0];
      // Not a standby (promoted, or a primary given by mistake): out, as a failing replica.
      if (!row || row.replayed === null) throw new Error('not a standby');
      replica.replayed = lsnValue(row.replayed);
      replica.lagMs = Number(row.lag_ms ?? Number.POSITIVE_INFINITY);
      replica.checkedAt = now();
    } catch {
      replica.downUntil = now() + REPLICA_RETRY_MS;
    }
  }

  /** Replicas in rotation, each checked when its last check is stale. */
  async function healthy(): Promise<Replica[]> {
    const at = now();
    const candidates = replicas.filter((replica) => replica.downUntil <= at);
    await Promise.all(candidates.filter((replica) => at - replica.checkedAt > REPLICA_HEALTH_TTL_MS).map(check));
    return candidates.filter((replica) => replica.downUntil <= now() && replica.lagMs <= options.maxLagMs);
  }

  function roundRobin(list: Replica[]): Replica | undefined {
    if (list.length === 0) return undefined;
    next = (next + 1) % list.length;
    return list[next];
  }

  return {
    async pick(token) {
      const inRotation = await healthy();
      if (token === undefined) return roundRobin(inRotation)?.driver;
      const wanted = lsnValue(token);
      const deadline = now() + options.waitMs;
      let waiting = inRotation;
      for (;;) {
        const ready = waiting.filter((replica) => replica.replayed >= wanted);
        if (ready.length > 0) return roundRobin(ready)?.driver;
        if (waiting.length === 0 || now() >= deadline) return undefined;
        await sleep(POLL_MS);
        await Promise.all(waiting.map(check));
        waiting = waiting.filter((replica) => replica.downUntil <= now());
      }
    },
    failed(driver) {
      const replica = replicas.find((candidate) => candidate.driver === driver);
      if (replica) replica.downUntil = now() + REPLICA_RETRY_MS;
    },
    async close() {
      await Promise.all(replicas.map((replica) => replica.driver.close()));
    },
  };
}
