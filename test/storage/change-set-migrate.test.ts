/**
 * An audit table made before change sets (no `change_set_id` column, no `cellgate:change-sets`
 * step applied) migrates additively on a real SQLite file: the column and its index are added,
 * older records read back with `changeSetId: null`, and new change sets are stored and found.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { createGovernedApi, defineEntity, type GovernedContext } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';

const Note = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Note',
  key: 'migrate.note',
  version: '1.0.0',
  description: 'A note',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { text: { type: 'string' } },
});

const dir = mkdtempSync(join(tmpdir(), 'cellgate-change-set-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const workspaceId = crypto.randomUUID();
const context: GovernedContext = {
  actor: { id: crypto.randomUUID(), type: 'user', tenantId: crypto.randomUUID(), roles: [], workspaces: { [workspaceId]: ['admin'] }, permissions: [] },
  scope: { workspaceId },
};
const apiOn = (filename: string) => {
  const storage = sqliteStorage({ filename });
  return { storage, api: createGovernedApi({ storage, auth: { secret: 'change-set-migrate-secret-0123456789' }, resources: { notes: Note } }) };
};

it('adds change_set_id to an audit table made before it, keeping older records as changeSetId null', async () => {
  const filename = join(dir, 'old.db');
  const first = apiOn(filename);
  await first.api.migrate();
  const old = await first.api.resources.notes.service.create(context, { text: 'before change sets' });
  await first.storage.close();

  // Back to the shape of a database migrated before change sets existed.
  const raw = new Database(filename);
  raw.exec('DROP INDEX cellgate_audit_log_change_set_idx');
  raw.exec('ALTER TABLE cellgate_audit_log DROP COLUMN change_set_id');
  raw.prepare('DELETE FROM cellgate_migrations WHERE name = ?').run('cellgate:change-sets');
  expect(raw.prepare("SELECT name FROM pragma_table_info('cellgate_audit_log') WHERE name = 'change_set_id'").all()).toEqual([]);
  raw.close();

  const second = apiOn(filename);
  await second.api.migrate();
  const columns = new Database(filename, { readonly: true });
  expect(columns.prepare("SELECT name FROM pragma_table_info('cellgate_audit_log') WHERE name = 'change_set_id'").all()).toEqual([{ name: 'change_set_id' }]);
  expect(columns.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'cellgate_audit_log_change_set_idx'").all()).toHaveLength(1);
  columns.close();

  const tenantId = context.actor.tenantId;
  const before = await second.storage.listAudit({ tenantId, resourceId: old.data.id, limit: 5 });
  expect(before.records.map((record) => record.changeSetId)).toEqual([null]);
  await second.api.transaction(context, async (tx) => {
    await tx.notes.create({ text: 'one' });
    await tx.notes.create({ text: 'two' });
  });
  const latest = await second.storage.listAudit({ tenantId, limit: 1 });
  const changeSetId = latest.records[0]!.changeSetId!;
  expect((await second.storage.listAudit({ tenantId, changeSetId, limit: 5 })).records).toHaveLength(2);
  await second.storage.close();
});
