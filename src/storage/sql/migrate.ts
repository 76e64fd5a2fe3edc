/**
 * `migrate(models)`: creates cellgate's shared tables and one table per entity major, additively
 * and idempotently. Every step runs inside the dialect's migration lock (an advisory transaction
 * lock on PostgreSQL, `BEGIN IMMEDIATE` on SQLite), so several processes may migrate at once; a
 * bookkeeping row per step (name → checksum) lets a restart skip steps already applied.
 */
import { sql, type RawBuilder } from 'kysely';
import type { EntityStorageModel } from '../types.ts';
import {
  AUDIT_COLUMNS,
  AUDIT_TABLE,
  DELIVERY_COLUMNS,
  DELIVERY_TABLE,
  entityColumns,
  EVENT_COLUMNS,
  EVENTS_TABLE,
  IDEMPOTENCY_COLUMNS,
  IDEMPOTENCY_TABLE,
  MIGRATIONS_TABLE,
  scopeColumns,
  VERSION_COLUMNS,
  VERSION_TABLE,
  type ColumnSpec,
} from './columns.ts';
import { assertModel, fnv1a, indexName } from './identifiers.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';

/** Bumped when the shape of the shared tables changes. */
const CORE_SCHEMA = 'core@2';

interface MigrationStep {
  name: string;
  checksum: string;
  apply(tx: SqlTx): Promise<void>;
}

function columnDdl(dialect: SqlDialect, spec: ColumnSpec): RawBuilder<unknown> {
  return sql`${sql.id(spec.name)} ${sql.raw(dialect.columnType(spec.kind))}${sql.raw(spec.notNull ? ' NOT NULL' : '')}`;
}

function createTable(dialect: SqlDialect, table: string, columns: readonly RawBuilder<unknown>[], tail: RawBuilder<unknown>[] = []) {
  return sql`CREATE TABLE IF NOT EXISTS ${sql.table(table)} (${sql.join([...columns, ...tail])})`;
}

interface IndexOptions {
  unique?: boolean;
  /** The sorted column whose NULLs come first (the list order of list-query.ts). */
  nullsFirst?: string;
  dialect?: SqlDialect;
  /** Index only live rows (`deleted_at IS NULL`): what default lists and their counts read. */
  liveOnly?: boolean;
}

function createIndex(table: string, suffix: string, columns: string[], options: IndexOptions = {}) {
  const nullsFirst = sql.raw(options.dialect?.nullsFirstIndex ?? '');
  const parts = columns.map((c) => (c === options.nullsFirst ? sql`${sql.ref(c)}${nullsFirst}` : sql.ref(c)));
  const where = options.liveOnly ? sql` WHERE ${sql.ref('deleted_at')} IS NULL` : sql``;
  return sql`CREATE ${sql.raw(options.unique ? 'UNIQUE ' : '')}INDEX IF NOT EXISTS ${sql.id(indexName(table, suffix))} ON ${sql.table(table)} (${sql.join(parts)})${where}`;
}

/** Adds the columns a table lacks (a field added to the entity document since the last migrate). */
async function addMissingColumns(tx: SqlTx, dialect: SqlDialect, table: string, specs: readonly ColumnSpec[]) {
  const existing = await dialect.existingColumns(tx, table);
  for (const spec of specs) {
    if (existing.has(spec.name)) continue;
    // New columns are nullable whatever the spec says: existing rows have no value for them.
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN ${columnDdl(dialect, { ...spec, notNull: false })}`.execute(tx);
  }
}

function coreStep(dialect: SqlDialect): MigrationStep {
  return {
    name: 'cellgate:core',
    checksum: `${CORE_SCHEMA}:${dialect.name}`,
    async apply(tx) {
      const statements = [
        createTable(dialect, AUDIT_TABLE, [
          sql`${sql.id('seq')} ${sql.raw(dialect.seqColumn)}`,
          ...AUDIT_COLUMNS.map((spec) => columnDdl(dialect, spec)),
        ]),
        createIndex(AUDIT_TABLE, 'id_key', ['id'], { unique: true }),
        createIndex(AUDIT_TABLE, 'tenant_seq_idx', ['tenant_id', 'seq']),
        createIndex(AUDIT_TABLE, 'resource_seq_idx', ['tenant_id', 'resource_type', 'resource_id', 'seq']),
        createIndex(AUDIT_TABLE, 'workspace_seq_idx', ['tenant_id', 'workspace_id', 'seq']),
        ...dialect.appendOnlyAuditDdl(AUDIT_TABLE),
        ...dialect.supportDdl(),
        createTable(dialect, VERSION_TABLE, VERSION_COLUMNS.map((spec) => columnDdl(dialect, spec)), [
          sql`PRIMARY KEY (${sql.join(['resource_type', 'id', 'version'].map((c) => sql.ref(c)))})`,
        ]),
        createTable(dialect, IDEMPOTENCY_TABLE, IDEMPOTENCY_COLUMNS.map((spec) => columnDdl(dialect, spec)), [
          sql`PRIMARY KEY (${sql.join(['tenant_id', 'actor_id', 'key'].map((c) => sql.ref(c)))})`,
        ]),
      ];
      for (const statement of statements) await statement.execute(tx);
    },
  };
}

/**
 * Idempotency keys got a lifetime: the `expires_at` column (added to tables made before it) and
 * its index for the sweep. Rows written before it have no lifetime; they are expired at once
 * (their stored answers may hold field values, which newer versions no longer keep).
 */
function idempotencyExpiryStep(dialect: SqlDialect): MigrationStep {
  return {
    name: 'cellgate:idempotency-expiry',
    checksum: `idempotency-expiry@1:${dialect.name}`,
    async apply(tx) {
      await addMissingColumns(tx, dialect, IDEMPOTENCY_TABLE, IDEMPOTENCY_COLUMNS);
      await sql`UPDATE ${sql.table(IDEMPOTENCY_TABLE)} SET ${sql.id('expires_at')} = ${sql.id('created_at')} WHERE ${sql.id('expires_at')} IS NULL`.execute(tx);
      await createIndex(IDEMPOTENCY_TABLE, 'expires_idx', ['expires_at']).execute(tx);
    },
  };
}

/**
 * The event outbox and the webhook delivery state. The partial index keeps finding events not yet
 * fanned out cheap however long the outbox grows.
 */
function eventsStep(dialect: SqlDialect): MigrationStep {
  const no = sql.raw(dialect.name === 'postgres' ? 'false' : '0');
  return {
    name: 'cellgate:events',
    checksum: `events@1:${dialect.name}`,
    async apply(tx) {
      const statements = [
        createTable(dialect, EVENTS_TABLE, [sql`${sql.id('seq')} ${sql.raw(dialect.seqColumn)}`, ...EVENT_COLUMNS.map((spec) => columnDdl(dialect, spec))]),
        createIndex(EVENTS_TABLE, 'id_key', ['id'], { unique: true }),
        createIndex(EVENTS_TABLE, 'tenant_seq_idx', ['tenant_id', 'seq']),
        createIndex(EVENTS_TABLE, 'workspace_seq_idx', ['tenant_id', 'workspace_id', 'seq']),
        sql`CREATE INDEX IF NOT EXISTS ${sql.id(indexName(EVENTS_TABLE, 'fanout_idx'))} ON ${sql.table(EVENTS_TABLE)} (${sql.ref('seq')}) WHERE ${sql.ref('fanned_out')} = ${no}`,
        createTable(dialect, DELIVERY_TABLE, DELIVERY_COLUMNS.map((spec) => columnDdl(dialect, spec)), [
          sql`PRIMARY KEY (${sql.join(['subscription_id', 'event_id'].map((c) => sql.ref(c)))})`,
        ]),
        createIndex(DELIVERY_TABLE, 'due_idx', ['state', 'next_attempt_at']),
        createIndex(DELIVERY_TABLE, 'event_idx', ['event_id']),
      ];
      for (const statement of statements) await statement.execute(tx);
    },
  };
}

function entityStep(dialect: SqlDialect, model: EntityStorageModel): MigrationStep {
  const columns = entityColumns(model);
  // Indexes lead with the entity's own scope columns (equality in every list), then the sorted
  // field and id, so PostgreSQL and SQLite read page 1 in order and stop after it. The other scope
  // columns (always NULL for this entity, still in every WHERE) trail, so counts stay index-only.
  // They must not sit in front: `IS NULL` is no equality for ordering, and the order would be lost.
  const scope = scopeColumns(model);
  const rest = ['tenant_id', 'workspace_id', 'cell_id'].filter((column) => !scope.includes(column));
  const indexes: Array<[string, string[], string | undefined]> = [
    ['scope_list_idx', [...scope, 'id', ...rest], undefined],
    ...model.indexedFields.map((field): [string, string[], string] => [`${field}_list_idx`, [...scope, field, 'id', ...rest], field]),
  ];
  const shape = JSON.stringify({ columns: columns.map((c) => [c.name, c.kind]), indexes });
  return {
    name: `entity:${model.table}`,
    checksum: `${CORE_SCHEMA}:${fnv1a(shape)}`,
    async apply(tx) {
      await createTable(dialect, model.table, columns.map((spec) => (spec.name === 'id' ? sql`${columnDdl(dialect, spec)} PRIMARY KEY` : columnDdl(dialect, spec)))).execute(tx);
      await addMissingColumns(tx, dialect, model.table, columns);
      for (const [suffix, indexColumns, sorted] of indexes) {
        await createIndex(model.table, suffix, indexColumns, { nullsFirst: sorted, dialect, liveOnly: sorted !== undefined }).execute(tx);
      }
    },
  };
}

async function appliedSteps(db: SqlDb | SqlTx): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; checksum: string }>`SELECT name, checksum FROM ${sql.table(MIGRATIONS_TABLE)}`.execute(db);
  return new Map(rows.map((row) => [row.name, row.checksum]));
}

/** Runs the migration steps for the shared tables and `models` that are not applied yet. */
export async function migrate(db: SqlDb, dialect: SqlDialect, models: readonly EntityStorageModel[]): Promise<void> {
  models.forEach(assertModel);
  const steps = [coreStep(dialect), idempotencyExpiryStep(dialect), eventsStep(dialect), ...models.map((model) => entityStep(dialect, model))];
  await dialect.withMigrationLock(db, async (tx) => {
    await createTable(dialect, MIGRATIONS_TABLE, [
      sql`name ${sql.raw(dialect.columnType('text'))} PRIMARY KEY`,
      sql`checksum ${sql.raw(dialect.columnType('text'))} NOT NULL`,
      sql`applied_at ${sql.raw(dialect.columnType('text'))} NOT NULL`,
    ]).execute(tx);
    const applied = await appliedSteps(tx);
    for (const step of steps) {
      if (applied.get(step.name) === step.checksum) continue;
      await step.apply(tx);
      await sql`INSERT INTO ${sql.table(MIGRATIONS_TABLE)} (name, checksum, applied_at)
        VALUES (${step.name}, ${step.checksum}, ${new Date().toISOString()})
        ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = excluded.applied_at`.execute(tx);
    }
  });
}
