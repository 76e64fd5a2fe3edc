/**
 * Migration files (issue #29 item 3), on a real SQLite file and a real PostgreSQL: a type change
 * (integer → string enum) and a rename (`renamed_from`) are refused by `cellgate migrate`,
 * written by `--generate` to numbered files, reviewed (the test maps the stored values as an app
 * would), applied by `cellgate migrate` in one transaction each and recorded; re-running is a
 * no-op, the app's migrate() then finds no drift, and a failing file leaves the schema as it was.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createGovernedService, defineEntity, toStorageModel, type CellgateError, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { run } from '../../src/cli/commands/migrate.ts';
import { freshScope, newRecord, seed, workspaceAdminContext } from '../../src/testing/storage-conformance-fixtures.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-migration-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const jobDocument = (key: string, fields: Record<string, unknown>) => ({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Job',
  key,
  version: '1.0.0',
  description: 'A job.',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields,
});
const model = (document: object) => toStorageModel(defineEntity(document as Parameters<typeof defineEntity>[0]));

let documents = 0;
/** The list each driver answered after the type change, to compare the two databases. */
const answers = new Map<string, unknown>();
async function cli(url: string, document: object, ...flags: string[]): Promise<{ code: number; out: string }> {
  const file = join(dir, `job-${documents++}.entity.json`);
  writeFileSync(file, JSON.stringify(document));
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
  try {
    return { code: await run(['--entity', file, '--database-url', url, ...flags]), out: lines.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

function fileCases(target: () => { url: string; storage(): StorageDriver }, driver: 'sqlite' | 'postgres', key: string) {
  it('generates, applies once and records a type change and a rename; a failing file changes nothing', async () => {
    const folder = mkdtempSync(join(dir, `${driver}-`));
    const table = `${key.replace('.', '_')}_v1`;
    const v1 = jobDocument(key, { title: { type: 'string' }, priority: { type: 'integer' } });
    expect((await cli(target().url, v1)).code).toBe(0);
    const storage = target().storage();
    const scope = freshScope();
    const records = [1, 2, 3].map((priority) => newRecord(scope, { title: `Job ${priority}`, priority }));
    const context = workspaceAdminContext([], { requestId: 'r', traceId: null, ip: null, userAgent: null });
    let governed: string;
    try {
      await seed(storage, model(v1), records);
      // One record with history written through the governed service: versions 1 (priority 2) and 2 (priority 3).
      const service = createGovernedService({ entity: defineEntity(v1 as Parameters<typeof defineEntity>[0]), storage });
      const created = await service.create(context, { title: 'Governed', priority: 2 });
      await service.update(context, created.data.id, { expectedVersion: 1, priority: 3 });
      governed = created.data.id;
    } finally {
      await storage.close();
    }

    // A type change: refused, then written to a file.
    const v2 = jobDocument(key, { title: { type: 'string' }, priority: { type: 'string', enum: ['LOW', 'MEDIUM', 'HIGH'] } });
    expect((await cli(target().url, v2, '--dir', folder)).code).toBe(1);
    const generated = await cli(target().url, v2, '--generate', '--dir', folder);
    expect(generated.code).toBe(0);
    const first = `0001_${table}.${driver}.sql`;
    expect(readdirSync(folder)).toEqual([first]);
    const text = readFileSync(join(folder, first), 'utf8');
    expect(text).toContain(driver === 'sqlite' ? 'CAST("priority" AS TEXT)' : 'USING "priority"::text');
    // The review: the app maps the stored integers to the entity's values.
    const mapping = `CASE "priority" WHEN 1 THEN 'LOW' WHEN 2 THEN 'MEDIUM' ELSE 'HIGH' END`;
    writeFileSync(join(folder, first), text.replace(driver === 'sqlite' ? 'CAST("priority" AS TEXT)' : '"priority"::text', mapping));

    const applied = await cli(target().url, v2, '--dir', folder);
    expect(applied.out).toContain(`migration file 0001_${table}`);
    expect(applied.code).toBe(0);
    // Applied once: a second run has nothing to do.
    expect((await cli(target().url, v2, '--dir', folder)).out).not.toContain('migration file');

    // History across the type change: the stored states are untouched and read as stored; a rollback
    // to a state of the old type is refused with 422 naming the field, never written.
    const typed = target().storage();
    try {
      const service = createGovernedService({ entity: defineEntity(v2 as Parameters<typeof defineEntity>[0]), storage: typed });
      const current = await service.get(context, governed);
      expect(current.data).toMatchObject({ priority: 'HIGH', version: 2 });
      const versions = await service.versions(context, governed);
      expect(versions.data.map((version) => version.snapshot?.priority)).toEqual([3, 2]);
      const refused = await service.rollback(context, governed, { targetVersion: 1 }).catch((error: CellgateError) => error);
      expect(refused).toMatchObject({ status: 422, code: 'INVALID_TARGET_VERSION' });
      expect((refused as CellgateError).message).toContain('priority holds a stored integer');
      expect((await service.get(context, governed)).data.version).toBe(2);
      answers.set(
        driver,
        (await service.list(context)).data.map(({ title, priority, version }) => ({ title, priority, version })),
      );
    } finally {
      await typed.close();
    }

    // A rename from renamed_from: refused, generated, applied; the values follow the column.
    const v3 = jobDocument(key, { label: { type: 'string', renamed_from: 'title' }, priority: { type: 'string', enum: ['LOW', 'MEDIUM', 'HIGH'] } });
    const refusedRename = await cli(target().url, v3, '--dir', folder);
    expect(refusedRename.code).toBe(1);
    expect(refusedRename.out).toContain('renamed label');
    expect((await cli(target().url, v3, '--generate', '--dir', folder)).code).toBe(0);
    const second = `0002_${table}.${driver}.sql`;
    expect(readFileSync(join(folder, second), 'utf8')).toContain(`ALTER TABLE "${table}" RENAME COLUMN "title" TO "label"`);
    expect((await cli(target().url, v3, '--dir', folder)).code).toBe(0);

    // The app's own migrate() finds no drift, and reads the converted, renamed rows.
    const app = target().storage();
    try {
      await app.migrate([model(v3)]);
      const stored = await app.get(model(v3), scope, records[1]!.id);
      expect(stored?.fields).toMatchObject({ label: 'Job 2', priority: 'MEDIUM' });
    } finally {
      await app.close();
    }

    // A failing file: its first statement is rolled back with it, and it is not recorded.
    writeFileSync(join(folder, `0003_${table}.${driver}.sql`), `ALTER TABLE "${table}" ADD COLUMN "extra" TEXT;\nSELECT * FROM no_such_table;\n`);
    expect((await cli(target().url, v3, '--dir', folder)).code).toBe(1);
    rmSync(join(folder, `0003_${table}.${driver}.sql`));
    const dry = await cli(target().url, v3, '--dry-run', '--dir', folder);
    expect(dry.out).not.toContain('extra');
    expect(dry.code).toBe(0);
  });
}

describe.skipIf(Boolean(driverSkip('sqlite')))('migration files on a SQLite file', () => {
  const file = join(dir, 'app.db');
  fileCases(() => ({ url: `sqlite:${file}`, storage: () => sqliteStorage({ filename: file }) }), 'sqlite', 'ops.job');
});

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
afterAll(async () => {
  if (server.ok) await server.db.stop();
});

describe.skipIf(!server.ok)(`migration files on PostgreSQL${server.ok ? '' : ` (skipped: ${server.skip})`}`, () => {
  const url = server.ok ? server.db.url : '';
  fileCases(() => ({ url, storage: () => postgresStorage({ connectionString: url }) }), 'postgres', 'ops.job');
});

describe('the same JSON from both databases', () => {
  it.skipIf(!server.ok || Boolean(driverSkip('sqlite')))('SQLite and PostgreSQL answer the same records after the same migration', () => {
    expect(answers.get('sqlite')).toEqual(answers.get('postgres'));
    expect(answers.get('sqlite')).toHaveLength(1);
  });
});
