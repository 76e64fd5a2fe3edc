/**
 * `cellgate migrate` compares each entity table with its entity: an added field becomes a column,
 * a changed field type is refused with the statement that would change it, `--dry-run` prints
 * the SQL and changes nothing, and a second run says "up to date". On SQLite files and on the
 * shared PostgreSQL when DATABASE_URL is set.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, type TestPostgres } from '../support/postgres.ts';
import { run } from '../../src/cli/commands/migrate.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-migrate-plan-'));

function entity(name: string, fields: Record<string, unknown>): string {
  const file = join(dir, `${name}.entity.json`);
  writeFileSync(
    file,
    JSON.stringify({
      $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
      name: 'Ticket',
      key: 'help.ticket',
      version: '1.0.0',
      description: 'A ticket.',
      scope: 'workspace-shared',
      governance_tier: 'tier-2',
      permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
      fields,
    }),
  );
  return file;
}

async function migrate(...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
  try {
    return { code: await run(args), out: lines.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

function columnType(file: string, column: string): string | undefined {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT type FROM pragma_table_info(?) WHERE name = ?').get('help_ticket_v1', column) as { type: string } | undefined)?.type;
  } finally {
    db.close();
  }
}

describe('cellgate migrate: differences between an entity and its table (SQLite)', () => {
  const file = join(dir, 'app.db');
  const url = `sqlite:${file}`;

  it('creates, then says up to date, then adds a new field as a column', async () => {
    const first = await migrate('--entity', entity('v1', { priority: { type: 'integer' } }), '--database-url', url);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/applied: help_ticket_v1: create table help_ticket_v1/);
    const again = await migrate('--entity', entity('v1', { priority: { type: 'integer' } }), '--database-url', url);
    expect(again.out).toMatch(/up to date/);

    const dry = await migrate(
      '--entity',
      entity('v2', { priority: { type: 'integer' }, title: { type: 'string', optional: true } }),
      '--database-url',
      url,
      '--dry-run',
    );
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/would apply: help_ticket_v1: add column title TEXT\n\s+ALTER TABLE "help_ticket_v1" ADD COLUMN "title" TEXT;/);
    expect(columnType(file, 'title')).toBeUndefined();

    const added = await migrate('--entity', entity('v2', { priority: { type: 'integer' }, title: { type: 'string', optional: true } }), '--database-url', url);
    expect(added.out).toMatch(/applied: help_ticket_v1: add column title TEXT/);
    expect(columnType(file, 'title')).toBe('TEXT');
  });

  it('refuses a type change with a plan, exit 1, and leaves the column as it was', async () => {
    const changed = await migrate('--entity', entity('v3', { priority: { type: 'string' } }), '--database-url', url);
    expect(changed.code).toBe(1);
    expect(changed.out).toMatch(/refused: help_ticket_v1: column priority is INTEGER, the entity needs TEXT/);
    expect(changed.out).toMatch(/Nothing was changed: a refused change stops the whole migration/);
    expect(changed.out).toMatch(/kept: help_ticket_v1: column title is no longer in the entity/);
    expect(columnType(file, 'priority')).toBe('INTEGER');
  });
});

const pg = process.env.DATABASE_URL;
// reason: needs a PostgreSQL server; runs when DATABASE_URL points at one (CI sets it).
describe.runIf(pg?.startsWith('postgres'))('cellgate migrate: a type change on PostgreSQL', () => {
  let db: TestPostgres | undefined;
  afterAll(() => db?.stop());

  it('is refused with the ALTER COLUMN … TYPE statement', async () => {
    db = await createDatabase(pg!);
    await migrate('--entity', entity('pg1', { priority: { type: 'integer' } }), '--database-url', db.url);
    const changed = await migrate('--entity', entity('pg2', { priority: { type: 'string' } }), '--database-url', db.url, '--dry-run');
    expect(changed.code).toBe(1);
    expect(changed.out).toMatch(/ALTER TABLE "help_ticket_v1" ALTER COLUMN "priority" TYPE text COLLATE "C" USING "priority"::text;/);
  }, 60_000);
});
