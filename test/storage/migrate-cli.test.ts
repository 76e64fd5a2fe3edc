/** `cellgate migrate` against real SQLite files, and its argument errors. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/migrate.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as Array<{ name: string }>).map(
      (row) => row.name,
    );
  } finally {
    db.close();
  }
}

describe('cellgate migrate', () => {
  it('creates the shared tables and the demo entity tables, twice without harm', async () => {
    const file = join(dir, 'demo', 'app.db');
    expect(await run(['--database-url', `sqlite:${file}`])).toBe(0);
    expect(await run(['--database-url', `sqlite:${file}`])).toBe(0);
    expect(tables(file)).toEqual([
      'cellgate_audit_log',
      'cellgate_audit_maintenance',
      'cellgate_event_deliveries',
      'cellgate_event_positions',
      'cellgate_events',
      'cellgate_idempotency',
      'cellgate_log_checkpoints',
      'cellgate_log_heads',
      'cellgate_log_leaves',
      'cellgate_log_nodes',
      'cellgate_migrations',
      'cellgate_rate_limit',
      'cellgate_version_state',
      'crm_customer_v1',
      'crm_invoice_v1',
      'ops_activity_event_v1',
    ]);
  });

  it('migrates only the entity documents given with --entity (YAML too)', async () => {
    const file = join(dir, 'one.db');
    const entity = join(dir, 'note.entity.yaml');
    writeFileSync(
      entity,
      [
        '$schema: https://cellgate.dev/schemas/entity-definition/v1.json',
        'name: Note',
        'description: A note.',
        'key: kb.note',
        'version: 2.1.0',
        'scope: workspace-shared',
        'governance_tier: tier-2',
        'permissions: { view: [viewer], edit: [editor], admin: [admin] }',
        'fields:',
        '  title: { type: string }',
      ].join('\n'),
    );
    expect(await run(['--entity', entity, '--database-url', `sqlite:${file}`])).toBe(0);
    expect(tables(file)).toContain('kb_note_v2');
    expect(tables(file)).not.toContain('crm_invoice_v1');
  });

  it('exits 1 on an invalid entity document and 2 on bad arguments or an unknown URL', async () => {
    const bad = join(dir, 'bad.entity.json');
    writeFileSync(bad, JSON.stringify({ name: 'X' }));
    expect(await run(['--entity', bad, '--database-url', 'sqlite::memory:'])).toBe(1);
    expect(await run(['--entity', join(dir, 'missing.json')])).toBe(2);
    expect(await run(['--bogus'])).toBe(2);
    expect(await run(['--database-url', 'mysql://localhost/x'])).toBe(2);
    expect(await run(['--database-url', 'sqlite:'])).toBe(2);
    expect(await run(['--help'])).toBe(0);
  });
});
