/**
 * The judge of drift: what `migrate` refuses when a stored table no longer matches its entity.
 * Every driver asks the same questions of its stored rows ({@link StoredRows}) and gets the same
 * verdicts, so `api.migrate()` in code and `cellgate migrate` refuse the same changes
 * (docs/storage.md#what-migrate-refuses, docs/decisions/B23.md). A refusal names the table, the
 * column, what is stored, what the entity wants and the way forward; nothing is changed.
 */
import { ConfigurationError } from '../errors.ts';
import { MIGRATION_SAMPLE_VALUES } from '../limits.ts';
import type { EntityStorageModel, StorageField } from './types.ts';

/** One change `migrate` will not make by itself. */
export interface DriftRefusal {
  table: string;
  column: string;
  /** What the table holds: `INTEGER`, `no column, 3 rows`, `values "URGENT"`. */
  stored: string;
  /** What the entity wants: `TEXT`, `a value in every row`, `one of LOW, MEDIUM, HIGH`. */
  wanted: string;
  /** What to do about it, with what exists today. */
  way: string;
  /** The statement that would make the change, where one can (for `cellgate migrate` to print). */
  sql?: string;
}

// Checked by brand, not by class identity: the command line and the app may load two copies of the module.
const BRAND = Symbol.for('cellgate.migration-refused');

/**
 * Thrown by `migrate()` (a driver's, `api.migrate()`, a resource's) when a stored table does not
 * match its entity in a way no additive change can fix. Nothing was changed: the migration ran in
 * one transaction that was rolled back. `refusals` lists each mismatch.
 *
 * @example
 * try {
 *   await api.migrate();
 * } catch (error) {
 *   if (error instanceof MigrationRefusedError) for (const r of error.refusals) console.error(r.table, r.column, r.way);
 *   throw error;
 * }
 */
export class MigrationRefusedError extends ConfigurationError {
  readonly refusals: readonly DriftRefusal[];

  /** True for a MigrationRefusedError of any copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  static {
    Object.defineProperty(this.prototype, BRAND, { value: true });
  }

  constructor(refusals: readonly DriftRefusal[]) {
    // The first refusal in full on the first line: a start-up log that keeps one line still says what and where.
    const [first, ...more] = refusals.map((r) => `table ${r.table}, column ${r.column}: stored ${r.stored}; the entity wants ${r.wanted}. ${r.way}`);
    const others = more.length === 0 ? '' : ` (${more.length} more below)${more.map((line) => `\n- ${line}`).join('')}`;
    super('migrate', `refused, nothing was changed: ${first}${others}`);
    this.name = 'MigrationRefusedError';
    this.refusals = refusals;
  }
}

/** What the judge asks of one table's stored rows; each answer is bounded (a `LIMIT` in SQL). */
export interface StoredRows {
  /** Whether the table holds any row (deleted ones included). */
  hasRows(): Promise<boolean>;
  /** Whether some row holds no value (NULL, or absent) in `column`. */
  hasMissing(column: string): Promise<boolean>;
  /** Up to `limit` distinct values of `column` outside `allowed` (NULLs aside). */
  valuesOutside(column: string, allowed: readonly string[], limit: number): Promise<unknown[]>;
}

const REVIEW = 'See the plan with `cellgate migrate --dry-run` (docs/storage.md#what-migrate-refuses).';

/** The way forward for a column whose type changed. */
export const TYPE_CHANGE_WAY = `Generate a migration (\`cellgate migrate --generate\`), review it (map the stored values the entity no longer accepts) and apply it with \`cellgate migrate\`, or keep the field's type and add a field under a new name; then migrate again (docs/evolving-entities.md#migration-files).`;

const quote = (values: readonly unknown[]) => values.map((value) => JSON.stringify(value)).join(', ');

/** The judge's verdict on one table's stored rows. */
export interface DriftVerdict {
  /** What `migrate` will not change by itself. */
  refusals: DriftRefusal[];
  /**
   * Required fields with a `default` that some stored row lacks (a new column, or one a killed
   * backfill left unfinished): accepted, and `migrate` fills them in bounded batches.
   */
  backfills: StorageField[];
}

/**
 * Judges the stored rows of `model.table` against the entity: a required field must have a value
 * in every row (a new required column over existing rows is refused, unless the field has a
 * `default`: then the rows are backfilled), and an enum field's stored values must be among the
 * allowed ones (a narrowed enum is refused when rows hold a removed value). `columns` are the
 * columns the table has; `skip` those already refused for their type.
 */
export async function judgeStoredRows(
  model: EntityStorageModel,
  columns: ReadonlySet<string>,
  rows: StoredRows,
  skip: ReadonlySet<string> = new Set(),
): Promise<DriftVerdict> {
  const verdict: DriftVerdict = { refusals: [], backfills: [] };
  let any: boolean | undefined;
  for (const field of model.fields) {
    if (skip.has(field.name)) continue;
    const refusal = columns.has(field.name)
      ? await judgeColumn(model.table, field, rows)
      : await judgeMissing(model.table, field, async () => (any ??= await rows.hasRows()));
    if (refusal === 'backfill') verdict.backfills.push(field);
    else if (refusal) verdict.refusals.push(refusal);
  }
  return verdict;
}

async function judgeMissing(table: string, field: StorageField, hasRows: () => Promise<boolean>): Promise<DriftRefusal | 'backfill' | undefined> {
  if (!field.required || !(await hasRows())) return undefined;
  if (field.default !== undefined) return 'backfill';
  return {
    table,
    column: field.name,
    stored: 'no such column, and the table holds rows',
    wanted: 'a value in every row (a required field)',
    way: `Give "${field.name}" a default (migrate then fills the stored rows), or make it optional or nullable; then migrate again. ${REVIEW}`,
  };
}

async function judgeColumn(table: string, field: StorageField, rows: StoredRows): Promise<DriftRefusal | 'backfill' | undefined> {
  if (field.required && (await rows.hasMissing(field.name))) {
    if (field.default !== undefined) return 'backfill';
    return {
      table,
      column: field.name,
      stored: 'rows without a value (NULL)',
      wanted: 'a value in every row (a required field)',
      way: `Make "${field.name}" optional or nullable again, or give those rows a value by hand; then migrate again. ${REVIEW}`,
    };
  }
  if (field.enum === undefined) return undefined;
  const outside = await rows.valuesOutside(field.name, field.enum, MIGRATION_SAMPLE_VALUES);
  if (outside.length === 0) return undefined;
  return {
    table,
    column: field.name,
    stored: `values outside the enum: ${quote(outside)}${outside.length === MIGRATION_SAMPLE_VALUES ? ' (and maybe more)' : ''}`,
    wanted: `one of ${quote(field.enum)}`,
    way: `Keep those values in the enum, or change the rows that hold them by hand; then migrate again. ${REVIEW}`,
  };
}

/** Throws a {@link MigrationRefusedError} when there is anything to refuse. */
export function refuseDrift(refusals: readonly DriftRefusal[]): void {
  if (refusals.length > 0) throw new MigrationRefusedError(refusals);
}
