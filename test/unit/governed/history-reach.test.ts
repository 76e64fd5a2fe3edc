/**
 * The history-reach policy as a pure function of the actor and the mounted resources: per type the
 * workspaces where the actor may view it, tenant-wide roles everywhere, system-global types only
 * for a tenant-wide role, the plan, `audit:read`, the audit log's own records for an actor who may
 * view everything, `workspaceId` narrowing, and the bound on the size of the storage filter.
 */
import { describe, expect, it } from 'vitest';
import { CellgateError, type Actor } from 'cellgate';
import { AUDIT_LOG_RESOURCE_TYPE, historyReachPolicy, narrowReach, type ReachResource } from '../../../src/governed/history-reach.ts';
import { HISTORY_REACH_MAX_TERMS } from '../../../src/limits.ts';

const everyone = { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] };
const resources: ReachResource[] = [
  { resourceType: 'crm.Customer@v1', policy: { permissions: everyone, scope: 'workspace-shared', plans: [] } },
  { resourceType: 'hr.Employee@v1', policy: { permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] }, scope: 'workspace-shared', plans: [] } },
  { resourceType: 'ops.Setting@v1', policy: { permissions: everyone, scope: 'system-global', plans: [] } },
  { resourceType: 'bi.Report@v1', policy: { permissions: everyone, scope: 'workspace-shared', plans: ['pro'] } },
];
const policy = historyReachPolicy(resources);
const ws = '33333333-3333-4333-8333-333333333333';
const otherWs = '44444444-4444-4444-8444-444444444444';

function actor(overrides: Partial<Actor>): Actor {
  return { id: 'u', type: 'user', tenantId: 't', roles: [], workspaces: {}, permissions: ['audit:read'], ...overrides };
}

/** The code of the error `run` throws. */
function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof CellgateError ? error.code : 'not a CellgateError';
  }
  return undefined;
}

describe('historyReachPolicy', () => {
  it('gives a workspace viewer the types it may view in its workspaces only', () => {
    const viewer = actor({ workspaces: { [ws]: ['viewer'], [otherWs]: ['admin'] } });
    expect(policy.reach(viewer)).toEqual([
      { resourceTypes: ['crm.Customer@v1'], workspaceIds: [ws, otherWs] },
      { resourceTypes: ['hr.Employee@v1'], workspaceIds: [otherWs] },
    ]);
    expect(policy.admits(viewer, 'hr.Employee@v1', ws)).toBe(false);
    expect(policy.admits(viewer, 'hr.Employee@v1', otherWs)).toBe(true);
    expect(policy.admits(viewer, 'ops.Setting@v1', null)).toBe(false);
    expect(policy.admits(viewer, 'unmounted.Thing@v1', ws)).toBe(false);
  });

  it('gives tenant-wide roles every workspace, system-global types included, and the audit log only to who may view everything', () => {
    const viewer = actor({ roles: ['viewer'] });
    expect(policy.reach(viewer)).toEqual([{ resourceTypes: ['crm.Customer@v1', 'ops.Setting@v1'], workspaceIds: null }]);
    const admin = actor({ roles: ['admin'], plan: 'pro' });
    expect(policy.reach(admin)).toEqual([
      { resourceTypes: ['crm.Customer@v1', 'hr.Employee@v1', 'ops.Setting@v1', 'bi.Report@v1', AUDIT_LOG_RESOURCE_TYPE], workspaceIds: null },
    ]);
    // Without the plan one resource is out of reach, so the audit log is too.
    expect(policy.admits(actor({ roles: ['admin'] }), AUDIT_LOG_RESOURCE_TYPE, null)).toBe(false);
    expect(policy.admits(actor({ roles: ['admin'] }), 'bi.Report@v1', ws)).toBe(false);
  });

  it('refuses without audit:read and for a workspace without a role, and narrows to a named workspace', () => {
    expect(codeOf(() => policy.reach(actor({ roles: ['admin'], permissions: [] })))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.admits(actor({ roles: ['admin'], permissions: [] }), 'crm.Customer@v1', ws))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.reach(actor({ workspaces: { [ws]: ['viewer'] } }), otherWs))).toBe('FORBIDDEN');
    expect(policy.reach(actor({ roles: ['viewer'] }), ws)).toEqual([{ resourceTypes: ['crm.Customer@v1', 'ops.Setting@v1'], workspaceIds: [ws] }]);
    expect(policy.reach(actor({ workspaces: { [ws]: ['guest'] } }), ws)).toEqual([]);
    expect(
      narrowReach(
        [
          { resourceTypes: ['a'], workspaceIds: [ws, otherWs] },
          { resourceTypes: ['b'], workspaceIds: [otherWs] },
        ],
        [ws],
      ),
    ).toEqual([{ resourceTypes: ['a'], workspaceIds: [ws] }]);
  });

  it(`refuses with 400 naming workspaceId a reach of more than ${HISTORY_REACH_MAX_TERMS} values; one workspace is always within it`, () => {
    const many: Record<string, string[]> = {};
    for (let index = 0; index < HISTORY_REACH_MAX_TERMS; index += 1) many[crypto.randomUUID()] = ['viewer'];
    const wide = actor({ workspaces: many });
    let caught: unknown;
    try {
      policy.reach(wide);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CellgateError);
    expect((caught as CellgateError).code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify((caught as CellgateError).details)).toContain('workspaceId');
    const one = Object.keys(many)[0]!;
    expect(policy.reach(wide, one)).toEqual([{ resourceTypes: ['crm.Customer@v1'], workspaceIds: [one] }]);
    // An item read tests one record and builds no storage filter, so it is not bounded this way.
    expect(policy.admits(wide, 'crm.Customer@v1', one)).toBe(true);
  });
});
