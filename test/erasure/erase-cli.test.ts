/**
 * `cellgate erase` against a real SQLite file: a record written through the governed core is
 * erased by the command (entity from --entity, workspace and cell found from the audit history),
 * and no read afterwards returns the erased value; plus its argument and not-found errors.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createGovernedService, type GovernedContext } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { run } from '../../src/cli/commands/erase.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-erase-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENTITY = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Member',
  key: 'club.member',
  version: '1.0.0',
  description: 'A club member',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions: { view: ['viewer', 'admin'], edit: ['admin'], admin: ['admin'] },
  fields: { nickname: { type: 'string' }, phone: { type: 'string', sensitive: true }, notes: { type: 'string', optional: true, redact: 'hash' } },
};

/** Runs the command, capturing what it prints. */
async function erase(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void out.push(parts.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void err.push(parts.join(' ')));
  try {
    return { code: await run(args), out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('cellgate erase', () => {
  const file = join(dir, 'club.db');
  const entityFile = join(dir, 'member.entity.json');
  writeFileSync(entityFile, JSON.stringify(ENTITY));
  const workspaceId = crypto.randomUUID();
  const tenantId = crypto.randomUUID();
  const ctx: GovernedContext = {
    actor: { id: 'u1', type: 'user', tenantId, roles: [], workspaces: { [workspaceId]: ['admin'] }, permissions: ['audit:read'] },
    scope: { workspaceId },
  };
  const PHONE = '+49-170-ERASE-5555';
  const NOTES = 'NOTES-erase-cli';

  async function reading<T>(fn: (service: ReturnType<typeof createGovernedService>) => Promise<T>): Promise<T> {
    const storage = sqliteStorage({ filename: file });
    const service = createGovernedService({ entity: ENTITY, storage });
    await storage.migrate([service.model]);
    try {
      return await fn(service);
    } finally {
      await storage.close();
    }
  }

  it('erases a record in a SQLite file: no read returns the value afterwards', async () => {
    const id = await reading(async (service) => {
      const created = await service.create(ctx, { nickname: 'kim', phone: PHONE, notes: NOTES });
      await service.update(ctx, created.data.id, { expectedVersion: 1, nickname: 'kimmy' });
      return created.data.id;
    });
    const result = await erase([
      '--database-url',
      `sqlite:${file}`,
      '--entity',
      entityFile,
      '--resource',
      'members',
      '--id',
      id,
      '--tenant',
      tenantId,
      '--reason',
      'ticket 42',
    ]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ erased: ['phone', 'notes'], id, version: 3, rewritten: { versionStates: 2 } });

    const seen = await reading(async (service) => ({
      record: await service.get(ctx, id),
      versions: await service.versions(ctx, id),
      history: await service.history(ctx, { resourceId: id }),
    }));
    expect(seen.record.data).toMatchObject({ phone: '[erased]', notes: null, nickname: 'kimmy', version: 3 });
    expect(seen.history.data[0]).toMatchObject({ eventType: 'entity.erased', actorId: 'cellgate-cli', reason: 'ticket 42' });
    // Straight from the file: no table holds the values any more.
    const raw = new Database(file, { readonly: true });
    try {
      const dump = JSON.stringify(
        ['cellgate_version_state', 'cellgate_audit_log', 'cellgate_events', 'club_member_v1'].map((table) => raw.prepare(`SELECT * FROM ${table}`).all()),
      );
      expect(dump).toContain('kimmy');
      expect(dump).not.toContain(PHONE);
      expect(dump).not.toContain(NOTES);
    } finally {
      raw.close();
    }
  });

  it('--vacuum reclaims the file afterwards: the erased value is in neither the database file nor its WAL', async () => {
    const CANARY = '+49-170-VACUUM-7777';
    const id = await reading(async (service) => (await service.create(ctx, { nickname: 'vac', phone: CANARY })).data.id);
    const base = ['--database-url', `sqlite:${file}`, '--entity', entityFile, '--resource', 'members', '--tenant', tenantId, '--reason', 'ticket 43'];
    expect((await erase([...base, '--id', id, '--vacuum', '--vacuum-full'])).code).toBe(2);
    const result = await erase([...base, '--id', id, '--vacuum']);
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toMatchObject({ erased: ['phone', 'notes'], id, vacuumed: 'plain' });
    for (const path of [file, `${file}-wal`]) if (existsSync(path)) expect(readFileSync(path).includes(CANARY)).toBe(false);
  });

  it('answers 1 for an unknown record and 2 for missing or bad arguments', async () => {
    const base = ['--database-url', `sqlite:${file}`, '--entity', entityFile, '--tenant', tenantId, '--reason', 'r'];
    const missing = await erase([...base, '--resource', 'members', '--id', crypto.randomUUID()]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no members record/);
    expect((await erase([...base, '--resource', 'members'])).code).toBe(2);
    expect((await erase([...base, '--resource', 'nothing', '--id', crypto.randomUUID()])).err).toMatch(/no entity named nothing/);
    expect((await erase(['--help'])).out).toMatch(/Usage: cellgate erase/);
  });
});
