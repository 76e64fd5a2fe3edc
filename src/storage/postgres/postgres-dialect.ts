/**
 * PostgreSQL specifics: native types (uuid, bigint, double precision, boolean, timestamptz,
 * jsonb, text[]), text columns in the "C" collation so sorting is byte order everywhere (the same
 * order as SQLite and independent of the server's locale), Unicode case folding through a small
 * SQL function, an advisory transaction lock around migrations, and SQLSTATE classification.
 */
import { sql, type RawBuilder } from 'kysely';
import type { ColumnKind, ErrorClass, SqlDialect } from '../sql/index.ts';

/** The case-folding SQL function `migrate()` creates (see `supportDdl`). */
export const FOLD_FUNCTION = 'cellgate_fold';

/** Advisory lock key of `migrate()` ("cellgate" folded into 31 bits), shared by every process. */
export const MIGRATION_LOCK_KEY = 0x63_65_6c_6c;

const TYPES: Record<ColumnKind, string> = {
  text: 'text COLLATE "C"',
  uuid: 'uuid',
  double: 'double precision',
  bigint: 'bigint',
  int: 'integer',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  json: 'jsonb',
  string_array: 'text[]',
};

// Shutdown, crash recovery, too many connections, the database or role gone or refused (a
// password rotated), or a write reaching a server that is read-only (25006: a standby, a demoted
// primary during a failover): the request did not happen, and it may succeed once the database is back.
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '57P05', '53300', '53400', '55000', '58030', '3D000', '28000', '28P01', '25006']);
// lock_timeout (lock_not_available) and statement_timeout (query_canceled).
const BUSY_CODES = new Set(['55P03', '57014']);
// disk_full: a retry does not help until space is freed.
const FULL_CODES = new Set(['53100']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const INVALID_CODES = new Set(['22P02', '22003', '22021', '22007', '22008', '22001', '2202E', '22P05']);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connection error|Cannot use a pool after calling end|Client was closed|not queryable/i;

function classify(error: unknown): ErrorClass | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === '23505') return 'unique';
    if (code === '40001' || code === '40P01') return 'retry';
    if (BUSY_CODES.has(code)) return 'busy';
    if (FULL_CODES.has(code)) return 'full';
    if (code.startsWith('08') || UNAVAILABLE_CODES.has(code) || NETWORK_CODES.has(code)) return 'unavailable';
    if (INVALID_CODES.has(code)) return 'invalid';
  }
  const nested = (error as { errors?: unknown }).errors; // AggregateError of a multi-address connect
  if (Array.isArray(nested) && nested.some((item) => classify(item) === 'unavailable')) return 'unavailable';
  return error instanceof Error && CONNECTION_MESSAGES.test(error.message) ? 'unavailable' : undefined;
}

function toIso(value: unknown): string {
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}

/** The PostgreSQL dialect object. */
export const postgresDialect: SqlDialect = {
  name: 'postgres',
  columnType: (kind) => TYPES[kind],
  nullsFirstIndex: ' ASC NULLS FIRST',
  seqColumn: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  encode(kind, value) {
    if (value === null || value === undefined) return null;
    // Serialised here: pg would turn a JS array into a PostgreSQL array literal, not JSON.
    if (kind === 'json') return JSON.stringify(value);
    return value;
  },
  decode(kind, value) {
    if (value === null || value === undefined) return null;
    switch (kind) {
      case 'timestamp':
        return toIso(value);
      case 'bigint':
        // pg returns int8 as a string to avoid precision loss; fields are JS numbers at the seam.
        return typeof value === 'number' ? value : Number(value);
      case 'json':
        return typeof value === 'string' ? JSON.parse(value) : value;
      default:
        return value;
    }
  },
  fold: (expression) => sql`${sql.raw(FOLD_FUNCTION)}(${expression})`,
  asText: (expression, kind) => (kind === 'text' ? expression : sql`CAST(${expression} AS text)`),
  supportDdl: () => [
    // lower() folds only ASCII under a "C" ctype. Prefer the database's own collation when it folds
    // Unicode, else ICU's root collation when the server has ICU; chosen once, at migrate time.
    sql`DO $$ BEGIN
      IF lower('Ä' COLLATE "default") = 'ä' OR NOT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
        CREATE OR REPLACE FUNCTION ${sql.raw(FOLD_FUNCTION)}(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
          AS 'SELECT lower(value COLLATE "default")';
      ELSE
        CREATE OR REPLACE FUNCTION ${sql.raw(FOLD_FUNCTION)}(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
          AS 'SELECT lower(value COLLATE "und-x-icu")';
      END IF;
    END $$`,
  ],
  appendOnlyAuditDdl(table) {
    const fn = sql.id(`${table}_append_only`);
    const reject = sql`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit records are append-only' USING ERRCODE = 'insufficient_privilege'; END $$`;
    const rows = sql`CREATE OR REPLACE TRIGGER ${sql.id(`${table}_no_change`)} BEFORE UPDATE OR DELETE ON ${sql.table(table)}
      FOR EACH ROW EXECUTE FUNCTION ${fn}()`;
    const truncate = sql`CREATE OR REPLACE TRIGGER ${sql.id(`${table}_no_truncate`)} BEFORE TRUNCATE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`;
    return [reject, rows, truncate] as RawBuilder<unknown>[];
  },
  maintenanceGuardDdl(table, grantTable) {
    // Same function name as the strict guard, so the triggers made by `appendOnlyAuditDdl` now
    // call this one. The grant is keyed by transaction id: a row another (committed or not)
    // transaction left opens nothing for this one. TRUNCATE is never allowed.
    return [
      sql`CREATE OR REPLACE FUNCTION ${sql.id(`${table}_append_only`)}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP <> 'TRUNCATE' AND EXISTS (SELECT 1 FROM ${sql.table(grantTable)} WHERE grant_key = txid_current()::text) THEN
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
          END IF;
          RAISE EXCEPTION 'audit records are append-only' USING ERRCODE = 'insufficient_privilege';
        END $$`,
    ] as RawBuilder<unknown>[];
  },
  maintenanceGrantKey: sql`txid_current()::text`,
  async existingColumns(db, table) {
    const { rows } = await sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${table}`.execute(db);
    return new Set(rows.map((row) => row.column_name));
  },
  withMigrationLock: (db, fn) =>
    db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(tx);
      return fn(tx);
    }),
  transaction: (db, fn) => db.transaction().execute(fn),
  // One upsert is atomic on its own: no BEGIN/COMMIT round trips.
  atomicWrite: (db, fn) => fn(db),
  classify,
};
