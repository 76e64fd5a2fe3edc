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
import { DELIVERY_COLUMNS, DELIVERY_TABLE, EVENTS_TABLE } from './columns.ts';
import type { Row } from './codec.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { reachCondition } from './history-reach.ts';
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
    await sql`INSERT INTO ${sql.table(EVENTS_TABLE)} (${sql.join(['id', 'tenant_id', 'workspace_id', 'resource_type', 'payload', 'fanned_out'].map((c) => sql.ref(c)))})
      VALUES (${event.id}, ${event.tenantId}, ${event.workspaceId}, ${event.resourceType}, ${dialect.encode('json', event)}, ${dialect.encode('boolean', false)})`.execute(
      tx,
    );
  });
}

function decodeEvent(dialect: SqlDialect, row: Row): StoredEvent {
  return { ...(dialect.decode('json', row.payload) as DomainEvent), cursor: encodeEventCursor(row.seq as string | number) };
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
        if (query.after !== undefined) parts.push(sql`${sql.ref('seq')} > ${decodeEventCursor(query.after)}`);
        const { rows } = await sql<Row>`SELECT ${sql.ref('seq')}, ${sql.ref('payload')} FROM ${sql.table(EVENTS_TABLE)}
          WHERE ${sql.join(parts, sql` AND `)} ORDER BY ${sql.ref('seq')} LIMIT ${Math.max(1, Math.floor(query.limit))}`.execute(db);
        return rows.map((row) => decodeEvent(dialect, row));
      }),

    fanOut: (limit, route, now) =>
      run(() =>
        dialect.transaction(db, async (tx) => {
          const { rows } = await sql<Row>`SELECT ${sql.ref('seq')}, ${sql.ref('payload')} FROM ${sql.table(EVENTS_TABLE)}
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
          const events = await sql<Row>`SELECT ${sql.ref('seq')}, ${sql.ref('payload')} FROM ${sql.table(EVENTS_TABLE)}
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
