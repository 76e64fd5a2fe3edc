/**
 * `migrate(models)`: creates cellgate's shared tables and one table per entity major, additively
 * and idempotently. Every step runs inside the dialect's migration lock (an advisory transaction
 * lock on PostgreSQL, `BEGIN IMMEDIATE` on SQLite), so several processes may migrate at once; a
 * bookkeeping row per step (name → checksum) lets a restart skip steps already applied.
 *
 * An entity table that exists is compared with its entity: missing columns and indexes are added
 * (safe); a column whose type or nullability differs is never changed in place, and the stored
 * rows are judged (drift.ts: a required field without a value, a value outside a narrowed enum).
 * Any refusal throws a `MigrationRefusedError` and rolls the whole run back, for `api.migrate()`
 * and `cellgate migrate` alike. A caller that observes the run (`observeMigration`, used by
 * `cellgate migrate`) gets every action, and with `dryRun` nothing is executed.
 */
import { sql, type RawBuilder } from 'kysely';
import { judgeStoredRows, refuseDrift, TYPE_CHANGE_WAY, type DriftRefusal, type StoredRows } from '../drift.ts';
import type { EntityStorageModel } from '../types.ts';
import {
  AUDIT_COLUMNS,
  AUDIT_TABLE,
  DELIVERY_COLUMNS,
  DELIVERY_TABLE,
  entityColumns,
  EVENT_COLUMNS,
  EVENT_POSITIONS_TABLE,
  EVENTS_TABLE,
  IDEMPOTENCY_COLUMNS,
  IDEMPOTENCY_TABLE,
  MAINTENANCE_TABLE,
  MIGRATIONS_TABLE,
  RATE_LIMIT_COLUMNS,
  RATE_LIMIT_TABLE,
  scopeColumns,
  VERSION_COLUMNS,
  VERSION_TABLE,
  type ColumnSpec,
} from './columns.ts';
import { backfillSummary, markBackfill, runBackfills } from './backfill.ts';
import { applyMigrationFiles, pendingMigrationFiles } from './migration-files.ts';
import { renameRefusal, sqliteRebuild } from './migration-plan.ts';
import { eventResourceId } from './events.ts';
import { assertModel, fnv1a, indexName } from './identifiers.ts';
import type { SqlDb, SqlDialect, SqlTx } from './sql-dialect.ts';
import { logStep } from './log-schema.ts';

/** One thing `migrate` did (or, in a dry run, would do) or refused to do. */
export interface MigrationAction {
  /** The table it concerns. */
  table: string;
  /** `applied` (or would be, in a dry run), `refused` (unsafe: needs a manual migration), or `kept` (a column no longer in the entity, left in place). */
  outcome: 'applied' | 'refused' | 'kept';
  /** What it is, in words: `add column "title" TEXT`. */
  summary: string;
  /** The SQL statement (for `refused`: the statement that would make the change). */
  sql: string;
}

/** An observed run: whether to execute, and the actions collected. */
export interface MigrationRun {
  dryRun: boolean;
  actions: MigrationAction[];
}

// A process-wide slot rather than a parameter: the StorageDriver seam's `migrate(models)` has no
// options, and the command line reaches the driver through its public entry (another module copy
// in the built package), so the slot lives on a registered symbol.
const RUN = Symbol.for('cellgate.migration-run');
type Slot = { [RUN]?: MigrationRun };

/**
 * Runs `fn` (which calls `storage.migrate(models)` on a SQL driver) with `run` observing: every
 * action is pushed to `run.actions`; with `run.dryRun`, no statement is executed.
 */
export async function observeMigration<T>(run: MigrationRun, fn: () => Promise<T>): Promise<T> {
  const slot = globalThis as Slot;
  slot[RUN] = run;
  try {
    return await fn();
  } finally {
    delete slot[RUN];
  }
}

/** A column as the database has it. */
interface ExistingColumn {
  type: string;
  notNull: boolean;
}

async function inspectTable(
  tx: SqlTx,
  dialect: SqlDialect,
  table: string,
): Promise<{ columns: Map<string, ExistingColumn>; indexes: Set<string> } | undefined> {
  const columns = new Map<string, ExistingColumn>();
  let indexes: string[];
  if (dialect.name === 'sqlite') {
    const { rows } = await sql<{ name: string; type: string; notnull: number }>`SELECT name, type, "notnull" FROM pragma_table_info(${table})`.execute(tx);
    for (const row of rows) columns.set(row.name, { type: row.type, notNull: row.notnull === 1 });
    indexes = (await sql<{ name: string }>`SELECT name FROM pragma_index_list(${table})`.execute(tx)).rows.map((row) => row.name);
  } else {
    const { rows } = await sql<{
      name: string;
      type: string;
      udt: string;
      nullable: string;
    }>`SELECT column_name AS name, data_type AS type, udt_name AS udt, is_nullable AS nullable
      FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`.execute(tx);
    for (const row of rows) columns.set(row.name, { type: row.type === 'ARRAY' ? `${row.udt.replace(/^_/, '')}[]` : row.type, notNull: row.nullable === 'NO' });
    indexes = (
      await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ${table}`.execute(tx)
    ).rows.map((row) => row.name);
  }
  return columns.size === 0 ? undefined : { columns, indexes: new Set(indexes) };
}

/** PostgreSQL reports type names longhand; the DDL writes some shorthand. */
const TYPE_ALIASES: Record<string, string> = {
  timestamptz: 'timestamp with time zone',
  int: 'integer',
  int4: 'integer',
  int8: 'bigint',
  float8: 'double precision',
  bool: 'boolean',
};
const sameType = (declared: string, existing: string) => {
  const norm = (type: string) => {
    const base = type
      .replace(/\s+COLLATE\s+.*$/i, '')
      .trim()
      .toLowerCase();
    return TYPE_ALIASES[base] ?? base;
  };
  return norm(declared) === norm(existing);
};

/** Bumped when the shape of the shared tables changes. */
const CORE_SCHEMA = 'core@2';
/**
 * Bumped when the judge of entity tables asks more: every entity step runs once more, so tables
 * accepted by an earlier, laxer judge are checked (docs/decisions/B23.md).
 */
const ENTITY_JUDGE = 'judge@1';

interface MigrationStep {
  name: string;
  checksum: string;
  /** Runs the step; what it will not change goes to `refusals` (the run is then rolled back). */
  apply(tx: SqlTx, run: MigrationRun | undefined, refusals: DriftRefusal[]): Promise<void>;
}

/** The judge's questions (drift.ts) as bounded statements on one table: each stops at its LIMIT. */
function storedRows(tx: SqlTx, table: string): StoredRows {
  const t = sql.table(table);
  const some = async (query: RawBuilder<unknown>) => (await query.execute(tx)).rows.length > 0;
  return {
    hasRows: () => some(sql`SELECT 1 FROM ${t} LIMIT 1`),
    hasMissing: (column) => some(sql`SELECT 1 FROM ${t} WHERE ${sql.ref(column)} IS NULL LIMIT 1`),
    async valuesOutside(column, allowed, limit) {
      const values = sql.join(allowed.map((value) => sql`${value}`));
      const { rows } = await sql<{ value: unknown }>`SELECT DISTINCT ${sql.ref(column)} AS value FROM ${t}
        WHERE ${sql.ref(column)} IS NOT NULL AND ${sql.ref(column)} NOT IN (${values}) LIMIT ${limit}`.execute(tx);
      return rows.map((row) => row.value);
    },
  };
}

function columnDdl(dialect: SqlDialect, spec: ColumnSpec): RawBuilder<unknown> {
  return sql`${sql.id(spec.name)} ${sql.raw(dialect.columnType(spec.kind))}${sql.raw(spec.notNull ? ' NOT NULL' : '')}`;
}

function createTable(_dialect: SqlDialect, table: string, columns: readonly RawBuilder<unknown>[], tail: RawBuilder<unknown>[] = []) {
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
        createTable(dialect, AUDIT_TABLE, [sql`${sql.id('seq')} ${sql.raw(dialect.seqColumn)}`, ...AUDIT_COLUMNS.map((spec) => columnDdl(dialect, spec))]),
        createIndex(AUDIT_TABLE, 'id_key', ['id'], { unique: true }),
        createIndex(AUDIT_TABLE, 'tenant_seq_idx', ['tenant_id', 'seq']),
        createIndex(AUDIT_TABLE, 'resource_seq_idx', ['tenant_id', 'resource_type', 'resource_id', 'seq']),
        createIndex(AUDIT_TABLE, 'workspace_seq_idx', ['tenant_id', 'workspace_id', 'seq']),
        ...dialect.appendOnlyAuditDdl(AUDIT_TABLE),
        ...dialect.supportDdl(),
        createTable(
          dialect,
          VERSION_TABLE,
          VERSION_COLUMNS.map((spec) => columnDdl(dialect, spec)),
          [sql`PRIMARY KEY (${sql.join(['resource_type', 'id', 'version'].map((c) => sql.ref(c)))})`],
        ),
        createTable(
          dialect,
          IDEMPOTENCY_TABLE,
          IDEMPOTENCY_COLUMNS.map((spec) => columnDdl(dialect, spec)),
          [sql`PRIMARY KEY (${sql.join(['tenant_id', 'actor_id', 'key'].map((c) => sql.ref(c)))})`],
        ),
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

/** The shared rate-limit table (its own step, so adding it leaves the core step applied as it was). */
function rateLimitStep(dialect: SqlDialect): MigrationStep {
  return {
    name: 'cellgate:rate-limit',
    checksum: `rate-limit@1:${dialect.name}`,
    async apply(tx) {
      await createTable(
        dialect,
        RATE_LIMIT_TABLE,
        RATE_LIMIT_COLUMNS.map((spec) => columnDdl(dialect, spec)),
        [sql`PRIMARY KEY (${sql.ref('rate_key')}, ${sql.ref('slot')})`],
      ).execute(tx);
      await createIndex(RATE_LIMIT_TABLE, 'expires_idx', ['expires_at']).execute(tx);
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
        createTable(
          dialect,
          DELIVERY_TABLE,
          DELIVERY_COLUMNS.map((spec) => columnDdl(dialect, spec)),
          [sql`PRIMARY KEY (${sql.join(['subscription_id', 'event_id'].map((c) => sql.ref(c)))})`],
        ),
        createIndex(DELIVERY_TABLE, 'due_idx', ['state', 'next_attempt_at']),
        createIndex(DELIVERY_TABLE, 'event_idx', ['event_id']),
      ];
      for (const statement of statements) await statement.execute(tx);
    },
  };
}

/**
 * The maintenance path: the grant table and the append-only guard that honours it (replacing the
 * strict guard of the core step, whose checksum stays as it was). See docs/lifecycle.md.
 */
function maintenanceStep(dialect: SqlDialect): MigrationStep {
  return {
    name: 'cellgate:audit-maintenance',
    checksum: `audit-maintenance@1:${dialect.name}`,
    async apply(tx) {
      const text = sql.raw(dialect.columnType('text'));
      const statements = [
        sql`CREATE TABLE IF NOT EXISTS ${sql.table(MAINTENANCE_TABLE)} (grant_key ${text} PRIMARY KEY, reason ${text} NOT NULL, started_at ${text} NOT NULL)`,
        ...dialect.maintenanceGuardDdl(AUDIT_TABLE, MAINTENANCE_TABLE),
      ];
      for (const statement of statements) await statement.execute(tx);
    },
  };
}

/**
 * The index of audit exports by time range (`exportAudit`): a tenant's records from `from` on, in
 * (`occurred_at`, `seq`) order, found without scanning the tenant's older history.
 */
function auditExportStep(dialect: SqlDialect): MigrationStep {
  return {
    name: 'cellgate:audit-export',
    checksum: `audit-export@1:${dialect.name}`,
    async apply(tx) {
      await createIndex(AUDIT_TABLE, 'tenant_time_idx', ['tenant_id', 'occurred_at', 'seq']).execute(tx);
    },
  };
}

/**
 * Retention: version states get the time they were written (`recorded_at`, backfilled for older
 * rows from the state's own `updatedAt`), and their index by time (audit records are read by time through the export index, `tenant_time_idx`).
 */
function retentionStep(dialect: SqlDialect): MigrationStep {
  const updatedAt = dialect.name === 'postgres' ? sql`(${sql.ref('state')}->>'updatedAt')::timestamptz` : sql`json_extract(${sql.ref('state')}, '$.updatedAt')`;
  return {
    name: 'cellgate:retention',
    checksum: `retention@1:${dialect.name}`,
    async apply(tx) {
      await addMissingColumns(tx, dialect, VERSION_TABLE, VERSION_COLUMNS);
      await sql`UPDATE ${sql.table(VERSION_TABLE)} SET ${sql.id('recorded_at')} = ${updatedAt} WHERE ${sql.id('recorded_at')} IS NULL`.execute(tx);
      await createIndex(VERSION_TABLE, 'retention_idx', ['tenant_id', 'resource_type', 'recorded_at']).execute(tx);
    },
  };
}

/**
 * Time travel (docs/time-travel.md): the state of a record at an instant is one probe of this
 * index, `(resource_type, id, recorded_at, version)`, whatever the length of its history.
 */
function timeTravelStep(): MigrationStep {
  return {
    name: 'cellgate:time-travel',
    checksum: 'time-travel@1',
    async apply(tx) {
      await createIndex(VERSION_TABLE, 'as_of_idx', ['resource_type', 'id', 'recorded_at', 'version']).execute(tx);
    },
  };
}

/**
 * The outbox's per-record index: erasure rewrites one record's events, found through it without a
 * walk over the tenant's whole outbox.
 */
function eventRecordIndexStep(dialect: SqlDialect): MigrationStep {
  return {
    name: 'cellgate:event-record-index',
    checksum: `event-record-index@1:${dialect.name}`,
    async apply(tx) {
      await sql`CREATE INDEX IF NOT EXISTS ${sql.id(indexName(EVENTS_TABLE, 'record_idx'))} ON ${sql.table(EVENTS_TABLE)}
        (${sql.ref('tenant_id')}, ${sql.ref('resource_type')}, (${eventResourceId(dialect)}), ${sql.ref('seq')})`.execute(tx);
    },
  };
}

/**
 * Per-tenant feed positions (docs/decisions/B20.md): the outbox gains `tenant_seq`, numbered in
 * commit order per tenant for the events already there, and the table of the last position handed
 * out per tenant. Feed reads find a position through the unique (tenant, position) index.
 */
function eventPositionsStep(dialect: SqlDialect): MigrationStep {
  const bigint = sql.raw(dialect.columnType('bigint'));
  return {
    name: 'cellgate:event-positions',
    checksum: `event-positions@1:${dialect.name}`,
    async apply(tx, run) {
      // A dry run reports entity tables only; this step changes shared ones.
      if (run?.dryRun) return;
      await addMissingColumns(tx, dialect, EVENTS_TABLE, EVENT_COLUMNS);
      const events = sql.table(EVENTS_TABLE);
      await sql`UPDATE ${events} SET ${sql.id('tenant_seq')} = numbered.n
        FROM (SELECT ${sql.ref('seq')}, row_number() OVER (PARTITION BY ${sql.ref('tenant_id')} ORDER BY ${sql.ref('seq')}) AS n FROM ${events}) AS numbered
        WHERE ${sql.raw(EVENTS_TABLE)}.${sql.id('seq')} = numbered.${sql.id('seq')}`.execute(tx);
      await createIndex(EVENTS_TABLE, 'tenant_position_key', ['tenant_id', 'tenant_seq'], { unique: true }).execute(tx);
      await createTable(dialect, EVENT_POSITIONS_TABLE, [
        sql`${sql.id('tenant_id')} ${sql.raw(dialect.columnType('text'))} PRIMARY KEY`,
        sql`${sql.id('last_seq')} ${bigint} NOT NULL`,
      ]).execute(tx);
      await sql`INSERT INTO ${sql.table(EVENT_POSITIONS_TABLE)} (${sql.id('tenant_id')}, ${sql.id('last_seq')})
        SELECT ${sql.ref('tenant_id')}, max(${sql.ref('tenant_seq')}) FROM ${events} GROUP BY ${sql.ref('tenant_id')}`.execute(tx);
    },
  };
}

/**
 * Change sets (docs/decisions/B27.md): audit records carry the id of the change set they were
 * written in (`change_set_id`, null for older rows and single writes), found by tenant and id
 * through its index without a walk over the tenant's history.
 */
function changeSetStep(dialect: SqlDialect): MigrationStep {
  return {
    name: 'cellgate:change-sets',
    checksum: `change-sets@1:${dialect.name}`,
    async apply(tx, run) {
      // A dry run reports entity tables only; this step changes a shared one.
      if (run?.dryRun) return;
      await addMissingColumns(tx, dialect, AUDIT_TABLE, AUDIT_COLUMNS);
      await createIndex(AUDIT_TABLE, 'change_set_idx', ['tenant_id', 'change_set_id', 'seq']).execute(tx);
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
  // A reference field's live rows by tenant and value: a delete finds the referrers of a record in
  // any workspace or cell of its scope, and a list filtered by the field reads few rows (B29).
  const referenceIndexes = (model.referenceFields ?? []).map((field): [string, string[]] => [`${field}_ref_idx`, ['tenant_id', field, 'id']]);
  // What the judge reads is in the checksum too: making a field required or narrowing an enum
  // runs the step (and its checks of the stored rows) again.
  // A default enters only where there is one, so the checksums of tables without defaults stay as they were.
  const judged = model.fields.map((field) => [field.name, field.required === true, field.enum ?? null, ...(field.default === undefined ? [] : [true])]);
  // Reference indexes enter the checksum only where there are some, so other tables' steps stay applied.
  const shape = JSON.stringify({
    columns: columns.map((c) => [c.name, c.kind]),
    indexes,
    judged,
    ...(referenceIndexes.length > 0 ? { referenceIndexes } : {}),
  });
  const table = model.table;
  return {
    name: `entity:${table}`,
    checksum: `${CORE_SCHEMA}:${ENTITY_JUDGE}:${fnv1a(shape)}`,
    async apply(tx, run, refusals) {
      const act = async (summary: string, statement: RawBuilder<unknown>) => {
        run?.actions.push({ table, outcome: 'applied', summary, sql: statement.compile(tx).sql });
        if (!run?.dryRun) await statement.execute(tx);
      };
      const refuse = (refusal: DriftRefusal, summary = `column ${refusal.column}: stored ${refusal.stored}; the entity wants ${refusal.wanted}`) => {
        refusals.push(refusal);
        run?.actions.push({ table, outcome: 'refused', summary, sql: refusal.sql ?? '' });
      };
      const mismatched = new Set<string>();
      const existing = await inspectTable(tx, dialect, table);
      // Whether a stored column's type differs from the entity's (the SQLite rebuild casts those).
      const retyped = (name: string, stored: string) => {
        const spec = columns.find((column) => column.name === name);
        return spec !== undefined && !sameType(dialect.columnType(spec.kind), stored);
      };
      if (!existing) {
        await act(
          `create table ${table}`,
          createTable(
            dialect,
            table,
            columns.map((spec) => (spec.name === 'id' ? sql`${columnDdl(dialect, spec)} PRIMARY KEY` : columnDdl(dialect, spec))),
          ),
        );
      } else {
        for (const spec of columns) {
          const found = existing.columns.get(spec.name);
          const type = dialect.columnType(spec.kind);
          const renamedFrom = model.fields.find((field) => field.name === spec.name)?.renamedFrom;
          if (!found && renamedFrom !== undefined && existing.columns.has(renamedFrom)) {
            // A rename is never made by itself: a process still running the old entity would lose the column.
            mismatched.add(spec.name);
            refuse(renameRefusal(dialect, table, renamedFrom, spec.name), `column ${renamedFrom} is renamed ${spec.name}: generate the migration`);
            continue;
          }
          if (!found) {
            // New columns are nullable whatever the spec says: existing rows have no value for them.
            await act(`add column ${spec.name} ${type}`, sql`ALTER TABLE ${sql.table(table)} ADD COLUMN ${columnDdl(dialect, { ...spec, notNull: false })}`);
            continue;
          }
          if (!sameType(type, found.type)) {
            mismatched.add(spec.name);
            refuse(
              {
                table,
                column: spec.name,
                stored: found.type,
                wanted: type,
                way: TYPE_CHANGE_WAY,
                sql:
                  dialect.name === 'postgres'
                    ? `ALTER TABLE "${table}" ALTER COLUMN "${spec.name}" TYPE ${type} USING "${spec.name}"::${type.replace(/\s+COLLATE.*$/i, '')}`
                    : sqliteRebuild(dialect, table, columns, existing.columns, retyped),
              },
              `column ${spec.name} is ${found.type}, the entity needs ${type}: existing values may not convert; generate a migration`,
            );
          } else if (found.notNull && !spec.notNull) {
            if (dialect.name === 'postgres')
              await act(`column ${spec.name} accepts NULL`, sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN ${sql.id(spec.name)} DROP NOT NULL`);
            else
              refuse(
                {
                  table,
                  column: spec.name,
                  stored: 'NOT NULL',
                  wanted: 'NULL allowed',
                  way: `Rebuild the table by hand; then migrate again.`,
                  sql: `-- SQLite cannot drop NOT NULL: rebuild "${table}"`,
                },
                `column ${spec.name} is NOT NULL, the entity allows null`,
              );
          } else if (!found.notNull && spec.notNull && dialect.name === 'postgres') {
            refuse(
              {
                table,
                column: spec.name,
                stored: 'NULL allowed',
                wanted: 'NOT NULL',
                way: 'Give every row a value and set NOT NULL by hand; then migrate again.',
                sql: `ALTER TABLE "${table}" ALTER COLUMN "${spec.name}" SET NOT NULL`,
              },
              `column ${spec.name} accepts NULL, cellgate needs NOT NULL: existing rows may hold NULL`,
            );
          }
        }
        const declared = new Set(columns.map((spec) => spec.name));
        for (const name of existing.columns.keys()) {
          if (!declared.has(name)) run?.actions.push({ table, outcome: 'kept', summary: `column ${name} is no longer in the entity; left in place`, sql: '' });
        }
        const present = new Set(existing.columns.keys());
        const verdict = await judgeStoredRows(model, present, storedRows(tx, table), mismatched);
        for (const refusal of verdict.refusals) refuse(refusal);
        // Accepted: the rows are filled after this transaction commits, a batch per transaction (backfill.ts).
        for (const field of verdict.backfills) {
          run?.actions.push({ table, outcome: 'applied', summary: backfillSummary(field), sql: '' });
          if (!run?.dryRun) await markBackfill(tx, table, field);
        }
      }
      for (const [suffix, indexColumns, sorted] of indexes) {
        if (existing?.indexes.has(indexName(table, suffix))) continue;
        await act(
          `create index ${indexName(table, suffix)}`,
          createIndex(table, suffix, indexColumns, { nullsFirst: sorted, dialect, liveOnly: sorted !== undefined }),
        );
      }
      for (const [suffix, indexColumns] of referenceIndexes) {
        if (existing?.indexes.has(indexName(table, suffix))) continue;
        await act(`create index ${indexName(table, suffix)}`, createIndex(table, suffix, indexColumns, { liveOnly: true }));
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
  const run = (globalThis as Slot)[RUN];
  const steps = [
    coreStep(dialect),
    idempotencyExpiryStep(dialect),
    rateLimitStep(dialect),
    eventsStep(dialect),
    maintenanceStep(dialect),
    auditExportStep(dialect),
    retentionStep(dialect),
    eventRecordIndexStep(dialect),
    timeTravelStep(),
    eventPositionsStep(dialect),
    changeSetStep(dialect),
    logStep(dialect),
    ...models.map((model) => entityStep(dialect, model)),
  ];
  const bookkeeping = createTable(dialect, MIGRATIONS_TABLE, [
    sql`name ${sql.raw(dialect.columnType('text'))} PRIMARY KEY`,
    sql`checksum ${sql.raw(dialect.columnType('text'))} NOT NULL`,
    sql`applied_at ${sql.raw(dialect.columnType('text'))} NOT NULL`,
  ]);
  // Migration files the app reviewed come first, each in its own transaction: the steps then judge the result.
  const files = pendingMigrationFiles();
  if (files.length > 0 && !run?.dryRun) {
    for (const name of await applyMigrationFiles(db, dialect, files, async (tx) => void (await bookkeeping.execute(tx)))) {
      run?.actions.push({ table: MIGRATIONS_TABLE, outcome: 'applied', summary: `migration file ${name}.${dialect.name}.sql`, sql: '' });
    }
  }
  await dialect.withMigrationLock(db, async (tx) => {
    if (run?.dryRun) {
      // Nothing is written; the shared tables are reported only when they are missing.
      if (!(await inspectTable(tx, dialect, AUDIT_TABLE)))
        run.actions.push({ table: AUDIT_TABLE, outcome: 'applied', summary: 'create the shared tables (audit log, version state, idempotency keys)', sql: '' });
      const refusals: DriftRefusal[] = [];
      for (const step of steps.slice(1)) await step.apply(tx, run, refusals);
      refuseDrift(refusals);
      return;
    }
    await bookkeeping.execute(tx);
    const applied = await appliedSteps(tx);
    const refusals: DriftRefusal[] = [];
    for (const step of steps) {
      // An observed run compares every entity table with its entity, applied before or not.
      if (applied.get(step.name) === step.checksum && !(run && step.name.startsWith('entity:'))) continue;
      const before = run?.actions.length ?? 0;
      await step.apply(tx, run, refusals);
      if (run && step.name === 'cellgate:core' && applied.get(step.name) !== step.checksum) {
        run.actions.splice(before, 0, {
          table: AUDIT_TABLE,
          outcome: 'applied',
          summary: 'create the shared tables (audit log, version state, idempotency keys)',
          sql: '',
        });
      }
      await sql`INSERT INTO ${sql.table(MIGRATIONS_TABLE)} (name, checksum, applied_at)
        VALUES (${step.name}, ${step.checksum}, ${new Date().toISOString()})
        ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = excluded.applied_at`.execute(tx);
    }
    // One refusal rolls the whole run back: an app never serves a table that does not match its entity.
    refuseDrift(refusals);
  });
  if (run?.dryRun) return;
  for (const [column, rows] of await runBackfills(db, dialect, models)) {
    run?.actions.push({ table: column.split('.')[0]!, outcome: 'applied', summary: `backfilled ${rows} rows of ${column} with its default`, sql: '' });
  }
}
