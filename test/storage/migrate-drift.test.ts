/**
 * One judge of drift (issue #29 item 1): the app's own `api.migrate()` refuses what `cellgate
 * migrate` refuses, on a real SQLite file and a real PostgreSQL. A type change (integer → string
 * enum), a required field added over stored rows and an enum narrowed below a stored value each
 * throw a MigrationRefusedError naming table, column, what is stored and what the entity wants;
 * the table's schema is as before; the command line gives the same verdict; additive changes (an
 * optional field, a widened enum, a new sorted field's index) are still applied.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createGovernedApi, defineEntity, MigrationRefusedError, toStorageModel, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { run } from '../../src/cli/commands/migrate.ts';
import { freshScope, newRecord, seed } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-migrate-drift-'));
const TABLE = 'pm_task_v1';

/** The entity document of pm.task 1.x with `fields` (and `sorted` fields). */
function taskDocument(fields: Record<string, unknown>, sorted: string[] = []) {
  return {
    $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
    name: 'Task',
    key: 'pm.task',
    version: '1.1.0',
    description: 'A task.',
    scope: 'workspace-shared',
    governance_tier: 'tier-2',
    permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
    fields: { title: { type: 'string' }, ...fields },
    data: { sorting: { allowedFields: sorted } },
  } as const;
}

const V1 = { priority: { type: 'integer' }, status: { type: 'string', enum: ['OPEN', 'DONE', 'HELD'] } };
const DRIFTS = {
  'a type change (integer → string enum)': { fields: { ...V1, priority: { type: 'string', enum: ['LOW', 'MEDIUM', 'HIGH'] } }, column: 'priority' },
  'a required field added over stored rows': { fields: { ...V1, owner: { type: 'string' } }, column: 'owner' },
  'an enum narrowed below a stored value': { fields: { ...V1, status: { type: 'string', enum: ['OPEN', 'DONE'] } }, column: 'status' },
} as const;

let files = 0;
function documentFile(document: object): string {
  const file = join(dir, `task-${files++}.entity.json`);
  writeFileSync(file, JSON.stringify(document));
  return file;
}

/** `cellgate migrate` on `url` with one entity document: exit code and the refused `table.column`s. */
async function cli(url: string, document: object, ...flags: string[]): Promise<{ code: number; refused: string[]; out: string }> {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
  try {
    const code = await run(['--entity', documentFile(document), '--database-url', url, ...flags]);
    const refused = lines.flatMap((line) => /^\s+refused: (\w+): column (\w+)/.exec(line)?.slice(1, 3).join('.') ?? []);
    return { code, refused, out: lines.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** `api.migrate()` of an app serving `document` on `storage`: the refusal, or undefined. */
async function appMigrate(storage: StorageDriver, document: ReturnType<typeof taskDocument>): Promise<MigrationRefusedError | undefined> {
  const api = createGovernedApi({ storage, auth: { secret: 'drift-test-secret-of-32-characters!' }, resources: [defineEntity(document)] });
  try {
    await api.migrate();
    return undefined;
  } catch (error) {
    if (error instanceof MigrationRefusedError) return error;
    throw error;
  }
}

interface Target {
  url: string;
  storage(): StorageDriver;
  /** Columns (name, type, nullability) and index names of the task table, sorted. */
  schema(): Promise<string[]>;
}

function driftCases(target: () => Target) {
  it('creates the table of 1.0 and stores a row with priority 2 and status HELD', async () => {
    const storage = target().storage();
    try {
      expect(await appMigrate(storage, taskDocument(V1))).toBeUndefined();
      await seed(storage, toStorageModel(defineEntity(taskDocument(V1))), [newRecord(freshScope(), { title: 'Old', priority: 2, status: 'HELD' })]);
    } finally {
      await storage.close();
    }
  });

  for (const [drift, { fields, column }] of Object.entries(DRIFTS)) {
    it(`refuses ${drift} in api.migrate() and in cellgate migrate alike, changing nothing`, async () => {
      const before = await target().schema();
      const storage = target().storage();
      let refused: MigrationRefusedError | undefined;
      try {
        refused = await appMigrate(storage, taskDocument(fields));
      } finally {
        await storage.close();
      }
      expect(refused).toBeInstanceOf(MigrationRefusedError);
      expect(refused!.refusals.map((r) => `${r.table}.${r.column}`)).toEqual([`${TABLE}.${column}`]);
      // On the first line: `cellgate serve` and most start-up logs keep only that one.
      expect(refused!.message.split('\n')[0]).toContain(`table ${TABLE}, column ${column}: stored `);
      expect(refused!.message).toMatch(/the entity wants .+\. .*then migrate again/);
      expect(await target().schema()).toEqual(before);

      const dry = await cli(target().url, taskDocument(fields), '--dry-run');
      const wet = await cli(target().url, taskDocument(fields));
      for (const verdict of [dry, wet]) {
        expect(verdict.code).toBe(1);
        expect(verdict.refused).toEqual([`${TABLE}.${column}`]);
      }
      expect(wet.out).toMatch(/refused on .*: nothing was changed/);
      expect(await target().schema()).toEqual(before);
    });
  }

  it('still applies additive changes: an optional field, a widened enum, a new sorted field', async () => {
    const additive = taskDocument({ ...V1, status: { type: 'string', enum: ['OPEN', 'DONE', 'HELD', 'LATER'] }, label: { type: 'string', optional: true } }, [
      'label',
    ]);
    const storage = target().storage();
    try {
      expect(await appMigrate(storage, additive)).toBeUndefined();
    } finally {
      await storage.close();
    }
    const schema = await target().schema();
    expect(schema.some((entry) => entry.startsWith('column label '))).toBe(true);
    expect(schema).toContain(`index ${TABLE}_label_list_idx`);
    expect((await cli(target().url, additive)).out).toMatch(/up to date/);
  });
}

describe.skipIf(Boolean(driverSkip('sqlite')))('one judge of drift on a SQLite file', () => {
  const file = join(dir, 'app.db');
  driftCases(() => ({
    url: `sqlite:${file}`,
    storage: () => sqliteStorage({ filename: file }),
    async schema() {
      const db = new Database(file, { readonly: true });
      try {
        const columns = db.prepare('SELECT name, type, "notnull" AS not_null FROM pragma_table_info(?)').all(TABLE) as Array<{
          name: string;
          type: string;
          not_null: number;
        }>;
        const indexes = db.prepare('SELECT name FROM pragma_index_list(?)').all(TABLE) as Array<{ name: string }>;
        return [...columns.map((c) => `column ${c.name} ${c.type} ${c.not_null}`), ...indexes.map((i) => `index ${i.name}`)].sort();
      } finally {
        db.close();
      }
    },
  }));
});

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
afterAll(async () => {
  if (server.ok) await server.db.stop();
});

describe.skipIf(!server.ok)(`one judge of drift on PostgreSQL${server.ok ? '' : ` (skipped: ${server.skip})`}`, () => {
  const url = server.ok ? server.db.url : '';
  driftCases(() => ({
    url,
    storage: () => postgresStorage({ connectionString: url }),
    async schema() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const columns = await client.query(
          'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
          [TABLE],
        );
        const indexes = await client.query('SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1', [TABLE]);
        return [
          ...columns.rows.map((c) => `column ${c.column_name} ${c.data_type} ${c.is_nullable}`),
          ...indexes.rows.map((i) => `index ${i.indexname}`),
        ].sort();
      } finally {
        await client.end();
      }
    },
  }));
});
