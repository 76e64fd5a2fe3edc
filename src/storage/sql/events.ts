/**
 * The SQL outbox: appending an event inside the writer's transaction, and the {@link EventStore}
 * (change feed, fan-out, delivery claims) over the database.
 *
 * Commit order. A `seq` assigned at INSERT can commit out of order on PostgreSQL: a transaction
 * that took seq 10 may commit after one that took seq 11, and a reader that already moved past
 * 11 would never see 10. So on PostgreSQL the append first takes a per-tenant advisory
 * transaction lock, held until commit: within a tenant, the next writer gets its `seq` only after
 * the previous one has committed, and `seq` order is commit order. SQLite runs one write
 * transaction at a time (`BEGIN IMMEDIATE`), which gives the same for free.
 */
import { sql, type RawBuilder } from 'kysely';
import { decodeEventCursor, encodeEventCursor } from '../event-cursor.ts';
import type { ClaimedDelivery, DeliveryCounts, DeliveryOutcome, DomainEvent, EventDelivery, EventStore, StoredEvent } from '../types.ts';
import { DELIVERY_COLUMNS, DELIVERY_TABLE, EVENT_POSITIONS_TABLE, EVENTS_TABLE } from './columns.ts';
import type { Row } from './codec.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { reachCondition } from './history-reach.ts';
import { jsonLength, sizedPage } from './sized-page.ts';
import { mapErrors } from './sql-errors.ts';

/** First key of the per-tenant event-order advisory lock (`'evnt'`); the second is the tenant's hash. */
const EVENT_LOCK_CLASS = 0x65_76_6e_74;

const affected = (result: { numAffectedRows?: bigint }): number => Number(result.numAffectedRows ?? 0n);

/** Appends one event in the open transaction `tx` (see the module comment for the PostgreSQL lock). */
/**
 * The event's resource id, read from its stored payload. Indexed (with tenant, resource type and
 * `seq`) by the `cellgate:event-record-index` step, so a record's events are found without a scan:
 * queries must use this very expression for the index to apply.
 */
export function eventResourceId(dialect: SqlDialect): RawBuilder<unknown> {
  return dialect.name === 'postgres' ? sql`${sql.ref('payload')}->>'resourceId'` : sql`json_extract(${sql.ref('payload')}, '$.resourceId')`;
}

export function appendEvent(dialect: SqlDialect, tx: SqlDb | SqlTx, event: DomainEvent): Promise<void> {
  return mapErrors(dialect, async () => {
    if (dialect.name === 'postgres') await sql`SELECT pg_advisory_xact_lock(${sql.lit(EVENT_LOCK_CLASS)}, hashtext(${event.tenantId}))`.execute(tx);
    // The tenant's next feed position, taken under the same lock (and the counter row's), so positions follow commit order too.
    const positions = sql.table(EVENT_POSITIONS_TABLE);
    const { rows } = await sql<{
      last_seq: string | number;
    }>`INSERT INTO ${positions} (${sql.id('tenant_id')}, ${sql.id('last_seq')}) VALUES (${event.tenantId}, 1)
      ON CONFLICT (${sql.id('tenant_id')}) DO UPDATE SET ${sql.id('last_seq')} = ${sql.raw(EVENT_POSITIONS_TABLE)}.${sql.id('last_seq')} + 1
      RETURNING ${sql.id('last_seq')}`.execute(tx);
    await sql`INSERT INTO ${sql.table(EVENTS_TABLE)} (${sql.join(['id', 'tenant_id', 'workspace_id', 'resource_type', 'payload', 'fanned_out', 'tenant_seq'].map((c) => sql.ref(c)))})
      VALUES (${event.id}, ${event.tenantId}, ${event.workspaceId}, ${event.resourceType}, ${dialect.encode('json', event)}, ${dialect.encode('boolean', false)}, ${rows[0]!.last_seq})`.execute(
      tx,
    );
  });
}

/** The columns every read of whole events selects. */
export const EVENT_ROW = sql.join(['seq', 'tenant_seq', 'payload'].map((c) => sql.ref(c)));

/** A stored event from a row of {@link EVENT_ROW}: its cursor names its position in its tenant's feed. */
export function decodeEvent(dialect: SqlDialect, row: Row): StoredEvent {
  return { ...(dialect.decode('json', row.payload) as DomainEvent), cursor: encodeEventCursor(row.tenant_seq as string | number) };
}

/**
 * ` AND …` keeping the events of `tenantId` after the cursor `after`. The cursor names a tenant
 * position; it is turned into the outbox `seq` of that event (one probe of the unique
 * (tenant, position) index), so the reads keep their `seq`-ordered indexes. The position test
 * stays too: a cursor past the tenant's last event is followed only by events beyond it.
 */
export function afterCursor(tenantId: string, after: string | undefined): RawBuilder<unknown> {
  if (after === undefined) return sql``;
  const position = decodeEventCursor(after);
  return sql` AND ${sql.ref('seq')} > coalesce((SELECT b.${sql.id('seq')} FROM ${sql.table(EVENTS_TABLE)} b
    WHERE b.${sql.id('tenant_id')} = ${tenantId} AND b.${sql.id('tenant_seq')} <= ${position} ORDER BY b.${sql.id('tenant_seq')} DESC LIMIT 1), 0)
    AND ${sql.ref('tenant_seq')} > ${position}`;
}

/** Characters charged per event beyond its stored JSON: its `cursor` member and the separator. */
const EVENT_OVERHEAD = 48;

/** The rows of a feed page: the first `limit` matching events in `seq` order, cut by size when `maxLength` is given. */
function pageRows(dialect: SqlDialect, where: RawBuilder<unknown>, limit: number, maxLength: number | undefined): RawBuilder<Row> {
  if (maxLength === undefined) return sql<Row>`SELECT ${EVENT_ROW} FROM ${sql.table(EVENTS_TABLE)} WHERE ${where} ORDER BY ${sql.ref('seq')} LIMIT ${limit}`;
  const columns = sql.join(['seq', 'tenant_seq', 'payload'].map((c) => sql`t.${sql.id(c)}`));
  const size = sql`${jsonLength(dialect, 'payload')} + ${sql.lit(EVENT_OVERHEAD)}`;
  return sizedPage({ table: EVENTS_TABLE, columns, where, direction: 'asc', limit, size, maxLength });
}

function decodeDelivery(dialect: SqlDialect, row: Row): EventDelivery {
  const value = (name: string) => dialect.decode(DELIVERY_COLUMNS.find((spec) => spec.name === name)!.kind, row[name] ?? null);
  return {
    subscriptionId: value('subscription_id') as string,
    eventId: value('event_id') as string,
    tenantId: value('tenant_id') as string,
    state: value('state') as EventDelivery['state'],
    attempts: Number(value('attempts')),
    nextAttemptAt: value('next_attempt_at') as string | null,
    lastStatus: value('last_status') === null ? null : Number(value('last_status')),
    lastError: value('last_error') as string | null,
    updatedAt: value('updated_at') as string,
  };
}

/** `(subscription_id, event_id) IN ((…), …)` for a non-empty list of keys. */
function deliveryKeys(keys: ReadonlyArray<{ subscriptionId: string; eventId: string }>): RawBuilder<unknown> {
  return sql`(${sql.ref('subscription_id')}, ${sql.ref('event_id')}) IN (${sql.join(keys.map((key) => sql`(${key.subscriptionId}, ${key.eventId})`))})`;
}

/** The committed side of the outbox over `db`. */
export function createSqlEventStore(dialect: SqlDialect, db: SqlDb): EventStore {
  const run = <T>(call: () => Promise<T>) => mapErrors(dialect, call);
  const timestamp = (value: string | null) => dialect.encode('timestamp', value);
  // PostgreSQL: concurrent dispatchers skip each other's rows. SQLite has one writer at a time.
  const skipLocked = sql.raw(dialect.name === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '');
  // A literal, as in the partial index's predicate, so the planner always matches the two.
  const notFannedOut = sql.raw(dialect.name === 'postgres' ? 'false' : '0');

  return {
    listEvents: (query) =>
      run(async () => {
        const parts: RawBuilder<unknown>[] = [sql`${sql.ref('tenant_id')} = ${query.tenantId}`];
        if (query.workspaceId !== undefined) parts.push(sql`${sql.ref('workspace_id')} = ${query.workspaceId}`);
        if (query.workspaceIds !== undefined) {
          parts.push(
            query.workspaceIds.length === 0 ? sql`1 = 0` : sql`${sql.ref('workspace_id')} IN (${sql.join(query.workspaceIds.map((id) => sql`${id}`))})`,
          );
        }
        if (query.reach !== undefined) parts.push(reachCondition(query.reach));
        if (query.resourceType !== undefined) parts.push(sql`${sql.ref('resource_type')} = ${query.resourceType}`);
        const where = sql`${sql.join(parts, sql` AND `)}${afterCursor(query.tenantId, query.after)}`;
        const { rows } = await pageRows(dialect, where, Math.max(1, Math.floor(query.limit)), query.maxLength).execute(db);
        return rows.map((row) => decodeEvent(dialect, row));
      }),

    latestCursors: (tenantIds) =>
      run(async () => {
        const out = new Map<string, string>();
        if (tenantIds.length === 0) return out;
        // The last position handed out per tenant: one primary-key probe per tenant, no outbox read.
        const { rows } = await sql<{ tenant_id: string; last_seq: string | number }>`SELECT ${sql.id('tenant_id')}, ${sql.id('last_seq')}
          FROM ${sql.table(EVENT_POSITIONS_TABLE)} WHERE ${sql.id('tenant_id')} IN (${sql.join(tenantIds.map((id) => sql`${id}`))})`.execute(db);
        for (const row of rows) out.set(row.tenant_id, encodeEventCursor(row.last_seq));
        return out;
      }),

    fanOut: (limit, route, now) =>
      run(() =>
        dialect.transaction(db, async (tx) => {
          const { rows } = await sql<Row>`SELECT ${EVENT_ROW} FROM ${sql.table(EVENTS_TABLE)}
            WHERE ${sql.ref('fanned_out')} = ${notFannedOut} ORDER BY ${sql.ref('seq')} LIMIT ${limit}${skipLocked}`.execute(tx);
          if (rows.length === 0) return 0;
          const values: RawBuilder<unknown>[] = [];
          for (const row of rows) {
            const event = decodeEvent(dialect, row);
            for (const subscriptionId of new Set(route(event))) {
              values.push(sql`(${subscriptionId}, ${event.id}, ${row.seq}, ${event.tenantId}, 'pending', 0, ${timestamp(now)}, ${timestamp(now)})`);
            }
          }
          if (values.length > 0) {
            const columns = ['subscription_id', 'event_id', 'event_seq', 'tenant_id', 'state', 'attempts', 'next_attempt_at', 'updated_at'];
            await sql`INSERT INTO ${sql.table(DELIVERY_TABLE)} (${sql.join(columns.map((c) => sql.ref(c)))}) VALUES ${sql.join(values)}
              ON CONFLICT (${sql.ref('subscription_id')}, ${sql.ref('event_id')}) DO NOTHING`.execute(tx);
          }
          await sql`UPDATE ${sql.table(EVENTS_TABLE)} SET ${sql.ref('fanned_out')} = ${dialect.encode('boolean', true)}
            WHERE ${sql.ref('seq')} IN (${sql.join(rows.map((row) => row.seq))})`.execute(tx);
          return rows.length;
        }),
      ),

    claimDeliveries: ({ now, limit, owner, leaseUntil }) =>
      run(() =>
        dialect.transaction(db, async (tx): Promise<ClaimedDelivery[]> => {
          const { rows } = await sql<Row>`SELECT * FROM ${sql.table(DELIVERY_TABLE)}
            WHERE ${sql.ref('state')} = 'pending' AND ${sql.ref('next_attempt_at')} <= ${timestamp(now)}
            AND (${sql.ref('lease_until')} IS NULL OR ${sql.ref('lease_until')} <= ${timestamp(now)})
            ORDER BY ${sql.ref('next_attempt_at')}, ${sql.ref('event_seq')} LIMIT ${limit}${skipLocked}`.execute(tx);
          if (rows.length === 0) return [];
          const deliveries = rows.map((row) => decodeDelivery(dialect, row));
          await sql`UPDATE ${sql.table(DELIVERY_TABLE)} SET ${sql.ref('lease_owner')} = ${owner}, ${sql.ref('lease_until')} = ${timestamp(leaseUntil)}
            WHERE ${deliveryKeys(deliveries)}`.execute(tx);
          const events = await sql<Row>`SELECT ${EVENT_ROW} FROM ${sql.table(EVENTS_TABLE)}
            WHERE ${sql.ref('id')} IN (${sql.join([...new Set(deliveries.map((delivery) => delivery.eventId))])})`.execute(tx);
          const byId = new Map(events.rows.map((row) => decodeEvent(dialect, row)).map((event) => [event.id, event]));
          return deliveries.flatMap((delivery) => {
            const event = byId.get(delivery.eventId);
            return event === undefined ? [] : [{ delivery, event }];
          });
        }),
      ),

    settleDelivery: (owner, outcome: DeliveryOutcome) =>
      run(async () => {
        const result = await sql`UPDATE ${sql.table(DELIVERY_TABLE)} SET ${sql.ref('state')} = ${outcome.state}, ${sql.ref('attempts')} = ${outcome.attempts},
          ${sql.ref('next_attempt_at')} = ${timestamp(outcome.nextAttemptAt)}, ${sql.ref('last_status')} = ${outcome.lastStatus},
          ${sql.ref('last_error')} = ${outcome.lastError}, ${sql.ref('updated_at')} = ${timestamp(outcome.at)},
          ${sql.ref('lease_owner')} = NULL, ${sql.ref('lease_until')} = NULL
          WHERE ${deliveryKeys([outcome])} AND ${sql.ref('lease_owner')} = ${owner} AND ${sql.ref('state')} = 'pending'`.execute(db);
        return affected(result) === 1;
      }),

    deliveryCounts: (subscriptionId) =>
      run(async () => {
        const where = subscriptionId === undefined ? sql`` : sql` WHERE ${sql.ref('subscription_id')} = ${subscriptionId}`;
        const { rows } = await sql<{
          state: string;
          total: unknown;
        }>`SELECT ${sql.ref('state')}, count(*) AS total FROM ${sql.table(DELIVERY_TABLE)}${where} GROUP BY ${sql.ref('state')}`.execute(db);
        const counts: DeliveryCounts = { pending: 0, delivered: 0, dead: 0 };
        for (const row of rows) if (row.state in counts) counts[row.state as keyof DeliveryCounts] = Number(row.total);
        return counts;
      }),

    listDeliveries: (eventId) =>
      run(async () => {
        const { rows } =
          await sql<Row>`SELECT * FROM ${sql.table(DELIVERY_TABLE)} WHERE ${sql.ref('event_id')} = ${eventId} ORDER BY ${sql.ref('subscription_id')}`.execute(
            db,
          );
        return rows.map((row) => decodeDelivery(dialect, row));
      }),
  };
}
