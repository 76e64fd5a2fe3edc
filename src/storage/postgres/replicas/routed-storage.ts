/**
 * A primary driver whose reads may go to replicas (B37). Routing is per request and ambient (an
 * AsyncLocalStorage context set by {@link ConsistencyRouting.read} / `write`), so the storage
 * interface and the services stay as they are: inside a read context the driver's own reads
 * outside transactions go to a replica the {@link ReplicaSet} picks; everything else (writes,
 * transactions, outbox claims, idempotency, rate limits, and any read outside a read context)
 * stays on the primary. A replica read that fails as an outage is served by the primary instead,
 * and the replica leaves the rotation for a while.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import { CellgateError } from '../../../errors.ts';
import type { SqlDb } from '../../sql/index.ts';
import type { AuditRecord, ConsistencyRouting, EventStore, StorageDriver } from '../../types.ts';
import { isLsn, laterLsn } from './lsn.ts';
import type { ReplicaSet } from './replica-set.ts';

/** What one request routes by: its kind, the token it sent, the LSN its own commits reached. */
interface RequestRouting {
  readonly kind: 'read' | 'write';
  readonly token: string | undefined;
  written: string | undefined;
}

/** Reads of the driver itself that may be served behind the primary. */
const ROUTED_READS = ['get', 'list', 'listReferrers', 'listAudit', 'getAudit', 'getVersionState', 'getVersionStateAt', 'listVersionStatesAt'] as const;
const ROUTED_EVENT_READS = ['listEvents', 'latestCursors'] as const;

/** A replica's failure that the primary may answer instead: an outage, not the caller's mistake. */
function isOutage(error: unknown): boolean {
  return !(error instanceof CellgateError) || error.code === 'SERVICE_UNAVAILABLE';
}

// After the commit, the insert position is past the commit record: a replica that has replayed
// up to it sees the write (and every earlier one).
const INSERT_LSN = sql<{ lsn: string }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`;

/** `primary` with reads routed over `replicas` inside a read context; `primaryDb` answers the token query. */
export function withReplicas(primary: StorageDriver, primaryDb: SqlDb, replicas: ReplicaSet): StorageDriver {
  const context = new AsyncLocalStorage<RequestRouting>();

  /** The replica for a read now, or none (primary). */
  async function target(): Promise<StorageDriver | undefined> {
    const routing = context.getStore();
    return routing?.kind === 'read' ? replicas.pick(routing.token) : undefined;
  }

  async function routed<T>(read: (driver: StorageDriver) => Promise<T>): Promise<T> {
    const replica = await target();
    if (replica === undefined) return read(primary);
    try {
      return await read(replica);
    } catch (error) {
      if (!isOutage(error)) throw error;
      replicas.failed(replica);
      return read(primary);
    }
  }

  /** Records the primary's insert position after a commit made inside a write context. */
  async function committed<T>(value: T): Promise<T> {
    const routing = context.getStore();
    if (routing?.kind === 'write') {
      const { rows } = await INSERT_LSN.execute(primaryDb);
      routing.written = laterLsn(routing.written, rows[0]?.lsn);
    }
    return value;
  }

  const reads = Object.fromEntries(
    ROUTED_READS.map((name) => [name, (...args: unknown[]) => routed((driver) => (driver[name] as (...a: unknown[]) => Promise<unknown>)(...args))]),
  );
  const eventReads = Object.fromEntries(
    ROUTED_EVENT_READS.filter((name) => primary.events[name] !== undefined).map((name) => [
      name,
      (...args: unknown[]) => routed((driver) => (driver.events[name] as (...a: unknown[]) => Promise<unknown>)(...args)),
    ]),
  );

  const consistency: ConsistencyRouting = {
    read: (token, fn) => context.run({ kind: 'read', token, written: undefined }, fn),
    async write(fn) {
      const routing: RequestRouting = { kind: 'write', token: undefined, written: undefined };
      const value = await context.run(routing, fn);
      return { value, token: routing.written };
    },
    isToken: isLsn,
  };

  return {
    ...primary,
    ...reads,
    events: { ...primary.events, ...eventReads } as EventStore,
    consistency,
    transaction: async (fn) => committed(await primary.transaction(fn)),
    maintenance: async (reason, fn) => committed(await primary.maintenance(reason, fn)),
    appendEvent: async (event) => committed(await primary.appendEvent(event)),
    exportAudit(query) {
      // Routed when called (inside the request's context), read when iterated (maybe after it).
      const chosen = target();
      return (async function* (): AsyncGenerator<AuditRecord> {
        const replica = await chosen;
        if (replica === undefined) return yield* primary.exportAudit(query);
        let yielded = false;
        try {
          for await (const record of replica.exportAudit(query)) {
            yielded = true;
            yield record;
          }
        } catch (error) {
          // Half a stream cannot be resumed elsewhere without a duplicate: only a failure before
          // the first record falls back to the primary.
          if (yielded || !isOutage(error)) throw error;
          replicas.failed(replica);
          yield* primary.exportAudit(query);
        }
      })();
    },
    async close() {
      await replicas.close();
      await primary.close();
    },
  } as StorageDriver;
}
