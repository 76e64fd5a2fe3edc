import { describe, expect, it } from 'vitest';
import { CellgateError } from 'cellgate';
import { accessLevel } from '../../../src/governed/access.ts';
import { ActivityEvent, Customer, OTHER_WS, WS, actor, customerInput, setup, wsCtx } from './core-fixtures.ts';

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => 'ok',
    (e: unknown) => e,
  );
  if (error === 'ok') return 'ok';
  expect(error).toBeInstanceOf(CellgateError);
  return (error as CellgateError).code;
}

const withRole = (role: string | null, permissions: string[] = []) => actor({ workspaces: role === null ? {} : { [WS]: [role] }, permissions });

describe('access (docs/decisions/B11.md)', () => {
  it('computes the level from workspace and tenant-wide roles', () => {
    expect(accessLevel(withRole('viewer'), Customer.permissions, WS)).toBe('view');
    expect(accessLevel(withRole('editor'), Customer.permissions, WS)).toBe('edit');
    expect(accessLevel(withRole('admin'), Customer.permissions, WS)).toBe('admin');
    expect(accessLevel(withRole('admin'), Customer.permissions, OTHER_WS)).toBe('none');
    expect(accessLevel(actor({ roles: ['editor'], workspaces: {} }), Customer.permissions, OTHER_WS)).toBe('edit');
    expect(accessLevel(actor({ workspaces: { __proto__: ['admin'] } as never }), Customer.permissions, '__proto__')).toBe('none');
  });

  it('matrix: view reads, edit creates and updates, admin deletes, nobody without a role', async () => {
    const { service } = await setup();
    const seed = await service.create(wsCtx(), customerInput);
    const rows: [string | null, string, string, string, string][] = [
      // role, read, create, update, delete
      [null, 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN'],
      ['viewer', 'ok', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN'],
      ['editor', 'ok', 'ok', 'ok', 'FORBIDDEN'],
      ['admin', 'ok', 'ok', 'ok', 'ok'],
    ];
    for (const [role, read, create, update, remove] of rows) {
      const ctx = wsCtx(withRole(role));
      const current = await service.get(wsCtx(), seed.data.id).then(
        (v) => v.meta.version,
        () => 0,
      );
      expect([role, await code(service.get(ctx, seed.data.id))]).toEqual([role, read]);
      expect([role, await code(service.list(ctx))]).toEqual([role, read]);
      expect([role, await code(service.create(ctx, customerInput))]).toEqual([role, create]);
      expect([role, await code(service.update(ctx, seed.data.id, { expectedVersion: current, name: `by ${role}` }))]).toEqual([role, update]);
      const target = await service.create(wsCtx(), customerInput);
      expect([role, await code(service.delete(ctx, target.data.id, { expectedVersion: 1 }))]).toEqual([role, remove]);
    }
  });

  it('includeDeleted needs admin and the read permission; history needs audit:read; rollback needs audit:restore', async () => {
    const { service } = await setup();
    const seed = await service.create(wsCtx(), customerInput);
    await service.update(wsCtx(), seed.data.id, { expectedVersion: 1, name: 'B' });
    expect(await code(service.list(wsCtx(withRole('admin')), { includeDeleted: true }))).toBe('FORBIDDEN');
    expect(await code(service.list(wsCtx(withRole('editor', ['crm.customers.read'])), { includeDeleted: true }))).toBe('FORBIDDEN');
    expect(await code(service.list(wsCtx(withRole('admin', ['crm.customers.read'])), { includeDeleted: true }))).toBe('ok');
    expect(await code(service.history(wsCtx(withRole('admin')), {}))).toBe('FORBIDDEN');
    expect(await code(service.history(wsCtx(withRole('viewer', ['audit:read'])), {}))).toBe('ok');
    expect(await code(service.versions(wsCtx(withRole('viewer', ['audit:read'])), seed.data.id))).toBe('ok');
    expect(await code(service.rollback(wsCtx(withRole('admin')), seed.data.id, { targetVersion: 1 }))).toBe('FORBIDDEN');
    // tier-1 workspace entity: rollback needs admin besides audit:restore.
    expect(await code(service.rollback(wsCtx(withRole('editor', ['audit:restore'])), seed.data.id, { targetVersion: 1 }))).toBe('FORBIDDEN');
    expect(await code(service.rollback(wsCtx(withRole('admin', ['audit:restore'])), seed.data.id, { targetVersion: 1 }))).toBe('ok');
  });

  it('restore needs admin even on tier-2', async () => {
    const { service } = await setup(Customer, { tier: 'tier-2' });
    const seed = await service.create(wsCtx(), customerInput);
    await service.update(wsCtx(), seed.data.id, { expectedVersion: 1, name: 'B' });
    expect(await code(service.rollback(wsCtx(withRole('editor', ['audit:restore'])), seed.data.id, { targetVersion: 1 }))).toBe('ok');
    await service.delete(wsCtx(), seed.data.id, { expectedVersion: 3 });
    expect(await code(service.rollback(wsCtx(withRole('editor', ['audit:restore'])), seed.data.id, { targetVersion: 3 }))).toBe('FORBIDDEN');
  });

  it('plan restriction → 403 PLAN_RESTRICTION with required and current plan', async () => {
    const { service } = await setup(Customer, { plans: ['pro', 'enterprise'] });
    const error = await service.list(wsCtx(actor({ plan: 'free' }))).catch((e: CellgateError) => e);
    expect(error).toMatchObject({ code: 'PLAN_RESTRICTION', status: 403, details: { requiredPlan: 'pro', currentPlan: 'free' } });
    expect(await code(service.list(wsCtx(actor({ plan: 'enterprise' }))))).toBe('ok');
  });

  it('system-global entities use tenant-wide roles only', async () => {
    const { service } = await setup(ActivityEvent);
    expect(await code(service.create({ actor: actor() }, { kind: 'x' }))).toBe('FORBIDDEN');
    expect(await code(service.create({ actor: actor({ roles: ['editor'] }) }, { kind: 'x' }))).toBe('ok');
  });

  it('history of another workspace or tenant shows nothing, and its records are 404', async () => {
    const { service } = await setup();
    const seed = await service.create(wsCtx(), customerInput);
    const both = actor({ workspaces: { [WS]: ['admin'], [OTHER_WS]: ['admin'] } });
    expect((await service.history(wsCtx(both, OTHER_WS), {})).data).toEqual([]);
    expect(await code(service.versions(wsCtx(both, OTHER_WS), seed.data.id))).toBe('NOT_FOUND');
    const audit = (await service.history(wsCtx(), {})).data[0]!;
    expect(await code(service.getAudit(wsCtx(both, OTHER_WS), audit.id))).toBe('NOT_FOUND');
    expect(await code(service.getAudit(wsCtx(actor({ tenantId: '22222222-2222-4222-8222-222222222222' })), audit.id))).toBe('NOT_FOUND');
  });
});
