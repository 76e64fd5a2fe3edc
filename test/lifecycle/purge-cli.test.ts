/**
 * `cellgate purge` against a real SQLite file (policy from flags, every tenant or one, immutable
 * tenants skipped or refused, dry run), the `cellgate:retention` migration step's backfill of
 * version-state times, and the reference host's purge schedule.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createGovernedService, type Actor, type GovernedContext, type GovernedService } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { run } from '../../src/cli/commands/purge.ts';
import { createDemoResources, loadDemoEntity } from '../../src/host/demo.ts';
import { lifecycleFromEnv } from '../../src/host/purge.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-purge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const customer = loadDemoEntity('customer.entity.json');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A retention period of about 9 ms, in days: whatever was written before a short pause is past it. */
const TINY_DAYS = '0.0000001';

function tenant(): GovernedContext {
  const workspaceId = crypto.randomUUID();
  const actor: Actor = { id: crypto.randomUUID(), type: 'user', tenantId: crypto.randomUUID(), roles: ['admin'], workspaces: {}, permissions: ['audit:read'] };
  return { actor, scope: { workspaceId } };
}

/** Creates a customer and deletes another in a fresh tenant. */
async function seed(service: GovernedService): Promise<{ ctx: GovernedContext; kept: string; deleted: string }> {
  const ctx = tenant();
  const kept = await service.create(ctx, { name: 'Kept', email: 'kept@example.com', status: 'active' });
  const doomed = await service.create(ctx, { name: 'Doomed', email: 'doomed@example.com', status: 'lead' });
  await service.delete(ctx, doomed.data.id, { expectedVersion: 1 });
  return { ctx, kept: kept.data.id, deleted: doomed.data.id };
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void out.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void err.push(parts.join(' ')));
  const code = await run(args);
  vi.restoreAllMocks();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const rows = (file: string, sql: string, ...params: unknown[]) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
};

describe('cellgate purge', () => {
  it('purges every tenant with history, skips an immutable one, refuses it by name, and changes nothing in a dry run', async () => {
    const file = join(dir, 'cli', 'app.db');
    const storage = sqliteStorage({ filename: file });
    const service = createGovernedService({ entity: customer as never, storage });
    await storage.migrate([service.model]);
    const open = await seed(service);
    const locked = await seed(service);
    await storage.close();
    await pause(30);
    const base = ['--database-url', `sqlite:${file}`, '--entity', join(process.cwd(), 'src/host/entities/customer.entity.json')];
    const policy = ['--retention-days', TINY_DAYS, '--deleted-after-days', TINY_DAYS, '--immutable-tenant', locked.ctx.actor.tenantId];

    const dry = await cli([...base, ...policy, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('dry run on');
    expect(dry.out).toContain(`tenant ${open.ctx.actor.tenantId}: would remove before`);
    expect(rows(file, 'SELECT count(*) AS n FROM cellgate_audit_log WHERE tenant_id = ?', open.ctx.actor.tenantId)).toEqual([{ n: 3 }]);

    const refused = await cli([...base, ...policy, '--tenant', locked.ctx.actor.tenantId]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/refused: .*immutable/);

    const done = await cli([...base, ...policy]);
    expect(done.code).toBe(0);
    expect(done.out).toContain(`tenant ${locked.ctx.actor.tenantId}: skipped, its history is immutable`);
    expect(done.out).toMatch(
      new RegExp(
        `tenant ${open.ctx.actor.tenantId}: removed before \\S+: 3 audit records, 0 version states, 3 events, 0 deliveries; removed 1 soft-deleted records \\(2 version states\\)`,
      ),
    );
    // The open tenant: the deleted record is gone, the live one stays with its current version;
    // what is left of the audit is the run's own records.
    expect(rows(file, 'SELECT id FROM crm_customer_v1 WHERE tenant_id = ?', open.ctx.actor.tenantId)).toEqual([{ id: open.kept }]);
    expect(rows(file, 'SELECT id, version FROM cellgate_version_state WHERE tenant_id = ?', open.ctx.actor.tenantId)).toEqual([{ id: open.kept, version: 1 }]);
    const audit = rows(file, 'SELECT event_type, actor_id, diff, snapshot FROM cellgate_audit_log WHERE tenant_id = ? ORDER BY seq', open.ctx.actor.tenantId);
    expect(audit.map((row) => [row.event_type, row.actor_id])).toEqual([
      ['entity.purged', 'cellgate-cli'],
      ['audit.purged', 'cellgate-cli'],
    ]);
    expect(JSON.stringify(audit)).not.toMatch(/doomed|Doomed/);
    // The outbox keeps only the run's own event (never fanned out: no dispatcher here; older ones went).
    expect(rows(file, 'SELECT count(*) AS n FROM cellgate_events WHERE tenant_id = ?', open.ctx.actor.tenantId)).toEqual([{ n: 1 }]);
    // The immutable tenant: untouched.
    expect(rows(file, 'SELECT count(*) AS n FROM cellgate_audit_log WHERE tenant_id = ?', locked.ctx.actor.tenantId)).toEqual([{ n: 3 }]);
    expect(rows(file, 'SELECT count(*) AS n FROM crm_customer_v1 WHERE tenant_id = ?', locked.ctx.actor.tenantId)).toEqual([{ n: 2 }]);
    // The append-only guard is still in force after the run.
    const raw = new Database(file);
    try {
      expect(() => raw.prepare('DELETE FROM cellgate_audit_log WHERE tenant_id = ?').run(locked.ctx.actor.tenantId)).toThrow(/append-only/);
    } finally {
      raw.close();
    }
  });

  it('rejects bad arguments with exit code 2', async () => {
    expect((await cli(['--retention-days', 'soon', '--database-url', `sqlite:${join(dir, 'bad.db')}`])).code).toBe(2);
    expect((await cli(['--nope'])).code).toBe(2);
  });
});

describe('the cellgate:retention migration step', () => {
  it('backfills the time of version states written before it from their own state', async () => {
    const file = join(dir, 'backfill.db');
    const storage = sqliteStorage({ filename: file });
    const service = createGovernedService({ entity: customer as never, storage });
    await storage.migrate([service.model]);
    const { ctx } = await seed(service);
    await storage.close();
    // Make the database look like one from before the step: no times, step not applied.
    const raw = new Database(file);
    raw.prepare('UPDATE cellgate_version_state SET recorded_at = NULL').run();
    raw.prepare(`DELETE FROM cellgate_migrations WHERE name = 'cellgate:retention'`).run();
    raw.close();
    const again = sqliteStorage({ filename: file });
    await again.migrate([service.model]);
    await again.close();
    const states = rows(file, 'SELECT recorded_at, state FROM cellgate_version_state WHERE tenant_id = ?', ctx.actor.tenantId);
    expect(states).toHaveLength(3);
    for (const state of states) expect(state.recorded_at).toBe((JSON.parse(String(state.state)) as { updatedAt: string }).updatedAt);
  });
});

describe('the reference host purge schedule', () => {
  it('reads its policy from the environment and refuses a bad value', () => {
    expect(lifecycleFromEnv({})).toEqual({ audit: {} });
    const settings = lifecycleFromEnv({
      CELLGATE_AUDIT_RETENTION_DAYS: '365',
      CELLGATE_AUDIT_IMMUTABLE_TENANTS: 'a, b',
      CELLGATE_PURGE_DELETED_AFTER_DAYS: '30',
    });
    expect(settings).toMatchObject({ audit: { retentionDays: 365 }, purgeDeletedAfterDays: 30 });
    expect((settings.audit.immutability as (tenant: string) => boolean)('b')).toBe(true);
    expect((settings.audit.immutability as (tenant: string) => boolean)('c')).toBe(false);
    expect(() => lifecycleFromEnv({ CELLGATE_AUDIT_RETENTION_DAYS: 'a year' })).toThrow(/CELLGATE_AUDIT_RETENTION_DAYS/);
  });

  it('purges on its interval when CELLGATE_PURGE_INTERVAL_MS is set', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const demo = await createDemoResources({
      env: { DATABASE_URL: 'memory:', CELLGATE_PURGE_INTERVAL_MS: '20', CELLGATE_PURGE_DELETED_AFTER_DAYS: TINY_DAYS },
    });
    try {
      expect(demo.banner.join('\n')).toContain('purge         every 20 ms');
      const service = demo.api.resources.customers!.service;
      const { ctx, kept, deleted } = await seed(service);
      await expect
        .poll(async () => (await service.history(ctx, { resourceId: deleted })).data.map((record) => record.eventType), { timeout: 5_000 })
        .toContain('entity.purged');
      expect((await service.get(ctx, kept)).data.name).toBe('Kept');
      expect(log.mock.calls.some(([line]) => String(line).includes('purge.completed'))).toBe(true);
    } finally {
      await demo.close();
    }
  });
});
