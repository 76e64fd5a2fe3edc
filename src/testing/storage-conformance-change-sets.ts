/**
 * Change sets and business rules on the driver under test (docs/entities.md): `api.transaction`
 * is all or nothing with one change-set id on every audit record and event, and rules refuse
 * writes from code, merge PATCH and JSON Patch alike, reading other entities in the transaction.
 */
import { beforeAll, expect } from 'vitest';
import { defineEntity } from '../entity-document/index.ts';
import { CellgateError } from '../errors.ts';
import { createGovernedApi } from '../governed/http/api.ts';
import type { RuleOperation } from '../governed/rules/business-rules.ts';
import type { GovernedContext } from '../governed/types.ts';
import type { DomainEvent, StorageDriver } from '../storage/types.ts';
import { workspaceAdminContext } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

const permissions = { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] };

/** A project of a workspace. */
export const ChangeSetProject = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Project',
  key: 'changeset.project',
  version: '1.0.0',
  description: 'A project of the change-set conformance cases',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions,
  fields: { name: { type: 'string' }, status: { type: 'string', enum: ['ACTIVE', 'CLOSED'] } },
});

/** A task of a project. */
export const ChangeSetTask = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'changeset.task',
  version: '1.0.0',
  description: 'A task of the change-set conformance cases',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions,
  fields: { title: { type: 'string' }, project_id: { type: 'string', format: 'uuid' } },
});

const context = (): GovernedContext =>
  workspaceAdminContext(['changeset.projects.read', 'changeset.tasks.read'], { requestId: 'req-change-set', traceId: null, ip: null, userAgent: null });

const codeOf = (error: unknown): string | undefined => (error instanceof CellgateError ? error.code : undefined);
const fail = <T>(promise: Promise<T>): Promise<unknown> =>
  promise.then(
    () => expect.fail('expected a refusal'),
    (error: unknown) => error,
  );

/** Builds the two-entity API under test, with a task rule and hooks that record what they saw. */
function buildApi(storage: StorageDriver) {
  const asked: RuleOperation[] = [];
  const events: DomainEvent[] = [];
  const afterCommits: DomainEvent[] = [];
  const api = createGovernedApi({
    storage,
    auth: { secret: 'change-set-conformance-secret-0123456789' },
    onEvent: (event) => {
      events.push(event);
    },
    resources: {
      projects: ChangeSetProject,
      tasks: {
        entity: ChangeSetTask,
        rules: {
          async validate(_input, { operation, next, tx }) {
            asked.push(operation);
            if (next === null) return;
            if (next.title === 'forbidden') throw new Error('a bug in the rule');
            // The project is read in the write's transaction, with the caller's access.
            const project = await tx.projects!.get(String(next.projectId)).catch(() => null);
            if (project?.data.status !== 'ACTIVE') return [{ path: 'projectId', message: 'The project must exist and be ACTIVE' }];
            return [];
          },
          afterCommit(event) {
            afterCommits.push(event);
          },
        },
      },
    },
  });
  return { api, asked, events, afterCommits };
}

/** The cases, registered inside the suite's describe. */
export function changeSetConformanceCases(driver: Current): void {
  describe('change sets and business rules', () => registerCases(driver));
}

function registerCases(driver: Current): void {
  let built: ReturnType<typeof buildApi>;
  beforeAll(async () => {
    built = buildApi(driver());
    await built.api.migrate();
  });
  const auditOf = async (ctx: GovernedContext) => (await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 100 })).records;
  const outboxOf = (ctx: GovernedContext) => driver().events.listEvents({ tenantId: ctx.actor.tenantId, limit: 100 });

  describe('change sets', () => {
    it('commits every write of a transaction with one changeSetId on its audit records and events', async () => {
      const ctx = context();
      const { api, events } = built;
      const result = await api.transaction(ctx, async (tx) => {
        const project = await tx.projects.create({ name: 'Launch', status: 'ACTIVE' });
        const task = await tx.tasks.create({ title: 'Plan', projectId: project.data.id });
        // Reads inside see the transaction's own writes.
        expect((await tx.tasks.get(task.data.id)).data.title).toBe('Plan');
        expect(events.filter((event) => event.tenantId === ctx.actor.tenantId)).toEqual([]);
        return { project, task };
      });
      const audit = await auditOf(ctx);
      expect(audit).toHaveLength(2);
      const changeSetId = audit[0]!.changeSetId;
      expect(changeSetId).toMatch(/^[0-9a-f-]{36}$/);
      expect(audit.map((record) => record.changeSetId)).toEqual([changeSetId, changeSetId]);
      expect((await outboxOf(ctx)).map((event) => [event.resourceId, event.changeSetId])).toEqual([
        [result.project.data.id, changeSetId],
        [result.task.data.id, changeSetId],
      ]);
      // Published after the commit, in write order.
      expect(events.filter((event) => event.tenantId === ctx.actor.tenantId).map((event) => event.changeSetId)).toEqual([changeSetId, changeSetId]);
      const byChangeSet = await driver().listAudit({ tenantId: ctx.actor.tenantId, changeSetId: changeSetId!, limit: 10 });
      expect(byChangeSet.records.map((record) => record.resourceId).sort()).toEqual([result.project.data.id, result.task.data.id].sort());
    });

    it('records a write on its own with changeSetId null', async () => {
      const ctx = context();
      await built.api.resources.projects.service.create(ctx, { name: 'Alone', status: 'ACTIVE' });
      expect((await auditOf(ctx)).map((record) => record.changeSetId)).toEqual([null]);
      expect((await outboxOf(ctx)).map((event) => event.changeSetId)).toEqual([null]);
    });

    it('changes nothing when the last write of a transaction conflicts: no record, no audit row, no outbox row', async () => {
      const ctx = context();
      const { api, events, afterCommits } = built;
      const projects = api.resources.projects.service;
      const project = await projects.create(ctx, { name: 'Before', status: 'ACTIVE' });
      const auditBefore = (await auditOf(ctx)).length;
      const outboxBefore = (await outboxOf(ctx)).length;
      const published = events.length;
      const hooked = afterCommits.length;
      const error = await fail(
        api.transaction(ctx, async (tx) => {
          await tx.tasks.create({ title: 'Lost', projectId: project.data.id });
          await tx.projects.update(project.data.id, { expectedVersion: 1, name: 'Renamed' });
          await tx.projects.update(project.data.id, { expectedVersion: 1, name: 'Stale' });
        }),
      );
      expect(codeOf(error)).toBe('CONFLICT');
      expect((error as CellgateError).details).toMatchObject({ expectedVersion: 1, currentVersion: 2 });
      expect((await projects.get(ctx, project.data.id)).data).toMatchObject({ name: 'Before', version: 1 });
      expect((await api.resources.tasks.service.list(ctx)).meta.total).toBe(0);
      expect(await auditOf(ctx)).toHaveLength(auditBefore);
      expect(await outboxOf(ctx)).toHaveLength(outboxBefore);
      expect(events).toHaveLength(published);
      expect(afterCommits).toHaveLength(hooked);
      // A stale If-Match inside is the 412 it is alone, and rolls back the same way.
      const precondition = await fail(
        api.transaction(ctx, async (tx) => {
          await tx.tasks.create({ title: 'Lost too', projectId: project.data.id });
          await tx.projects.update(project.data.id, { name: 'Stale' }, { ifMatch: 7 });
        }),
      );
      expect(codeOf(precondition)).toBe('PRECONDITION_FAILED');
      expect((await api.resources.tasks.service.list(ctx)).meta.total).toBe(0);
      expect(await auditOf(ctx)).toHaveLength(auditBefore);
    });

    it('deletes and restores inside one transaction as one change set, asking the rule each time', async () => {
      const ctx = context();
      const { api, asked } = built;
      const project = await api.resources.projects.service.create(ctx, { name: 'P', status: 'ACTIVE' });
      const task = await api.resources.tasks.service.create(ctx, { title: 'Back', projectId: project.data.id });
      asked.length = 0;
      const restored = await api.transaction(ctx, async (tx) => {
        await tx.tasks.delete(task.data.id, { expectedVersion: 1 });
        return tx.tasks.rollback(task.data.id, { targetVersion: 1, expectedVersion: 2 });
      });
      expect(restored.data).toMatchObject({ version: 3, deletedAt: null });
      expect(asked).toEqual(['delete', 'restore']);
      const history = await driver().listAudit({ tenantId: ctx.actor.tenantId, resourceId: task.data.id, limit: 10 });
      const [restore, deletion, creation] = history.records;
      expect([restore?.eventType, deletion?.eventType]).toEqual(['entity.restored', 'entity.deleted']);
      expect(restore?.changeSetId).not.toBeNull();
      expect(deletion?.changeSetId).toBe(restore?.changeSetId);
      expect(creation?.changeSetId).toBeNull();
    });

    it('rolls back everything when the callback throws its own error, and rethrows it', async () => {
      const ctx = context();
      const mine = new Error('changed my mind');
      const error = await fail(
        built.api.transaction(ctx, async (tx) => {
          await tx.projects.create({ name: 'Gone', status: 'ACTIVE' });
          throw mine;
        }),
      );
      expect(error).toBe(mine);
      expect((await built.api.resources.projects.service.list(ctx)).meta.total).toBe(0);
      expect(await auditOf(ctx)).toEqual([]);
    });

    it('refuses a tx used after its transaction ended, and an Idempotency-Key inside one', async () => {
      const ctx = context();
      let kept: { create(input: { name: string; status: 'ACTIVE' | 'CLOSED' }): Promise<unknown> } | undefined;
      await built.api.transaction(ctx, async (tx) => {
        kept = tx.projects;
        const keyed = await fail(tx.projects.create({ name: 'Keyed', status: 'ACTIVE' }, { idempotencyKey: 'k-1' }));
        expect(codeOf(keyed)).toBe('VALIDATION_ERROR');
      });
      expect(await fail(kept!.create({ name: 'Late', status: 'ACTIVE' }))).toBeInstanceOf(TypeError);
      expect(await auditOf(ctx)).toEqual([]);
    });
  });

  describe('business rules', () => {
    it('refuses a create in code with 422 BUSINESS_RULE_VIOLATION and details.fields, writing nothing', async () => {
      const ctx = context();
      const tasks = built.api.resources.tasks.service;
      const error = await fail(tasks.create(ctx, { title: 'Orphan', projectId: crypto.randomUUID() }));
      expect(codeOf(error)).toBe('BUSINESS_RULE_VIOLATION');
      expect((error as CellgateError).status).toBe(422);
      expect((error as CellgateError).details).toEqual({ fields: [{ path: 'projectId', message: 'The project must exist and be ACTIVE' }] });
      expect((await tasks.list(ctx)).meta.total).toBe(0);
      expect(await auditOf(ctx)).toEqual([]);
    });

    it('refuses a merge update and a JSON Patch with the merged next state', async () => {
      const ctx = context();
      const { projects, tasks } = built.api.resources;
      const active = await projects.service.create(ctx, { name: 'Open', status: 'ACTIVE' });
      const closed = await projects.service.create(ctx, { name: 'Shut', status: 'CLOSED' });
      const task = await tasks.service.create(ctx, { title: 'Work', projectId: active.data.id });
      const merge = await fail(tasks.service.update(ctx, task.data.id, { expectedVersion: 1, projectId: closed.data.id }));
      expect(codeOf(merge)).toBe('BUSINESS_RULE_VIOLATION');
      const patch = await fail(
        tasks.service.update(ctx, task.data.id, { expectedVersion: 1, patch: [{ op: 'replace', path: '/projectId', value: closed.data.id }] }),
      );
      expect(codeOf(patch)).toBe('BUSINESS_RULE_VIOLATION');
      expect((await tasks.service.get(ctx, task.data.id)).data).toMatchObject({ version: 1, projectId: active.data.id });
      // A change the rule accepts goes through.
      const renamed = await tasks.service.update(ctx, task.data.id, { expectedVersion: 1, patch: [{ op: 'replace', path: '/title', value: 'Done' }] });
      expect(renamed.data.version).toBe(2);
    });

    it('reads another entity written earlier in the same transaction', async () => {
      const ctx = context();
      const { api } = built;
      const task = await api.transaction(ctx, async (tx) => {
        const project = await tx.projects.create({ name: 'Fresh', status: 'ACTIVE' });
        return tx.tasks.create({ title: 'First', projectId: project.data.id });
      });
      expect(task.data.version).toBe(1);
      const refused = await fail(
        api.transaction(ctx, async (tx) => {
          const project = await tx.projects.create({ name: 'Closed', status: 'CLOSED' });
          await tx.tasks.create({ title: 'Blocked', projectId: project.data.id });
        }),
      );
      expect(codeOf(refused)).toBe('BUSINESS_RULE_VIOLATION');
      expect((await api.resources.projects.service.list(ctx)).data.map((project) => project.name)).toEqual(['Fresh']);
    });

    it('asks the rule on delete, rollback and restore', async () => {
      const ctx = context();
      const { api, asked } = built;
      const project = await api.resources.projects.service.create(ctx, { name: 'P', status: 'ACTIVE' });
      const tasks = api.resources.tasks.service;
      const task = await tasks.create(ctx, { title: 'A', projectId: project.data.id });
      await tasks.update(ctx, task.data.id, { expectedVersion: 1, title: 'B' });
      asked.length = 0;
      await tasks.rollback(ctx, task.data.id, { targetVersion: 1, expectedVersion: 2 });
      await tasks.delete(ctx, task.data.id, { expectedVersion: 3 });
      await tasks.rollback(ctx, task.data.id, { targetVersion: 3, expectedVersion: 4 });
      expect(asked).toEqual(['rollback', 'delete', 'restore']);
    });

    it('answers a rule that throws anything else as an internal error, writing nothing', async () => {
      const ctx = context();
      const project = await built.api.resources.projects.service.create(ctx, { name: 'P', status: 'ACTIVE' });
      const error = await fail(built.api.resources.tasks.service.create(ctx, { title: 'forbidden', projectId: project.data.id }));
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(CellgateError);
      expect((error as Error).message).toContain('a bug in the rule');
      expect((await built.api.resources.tasks.service.list(ctx)).meta.total).toBe(0);
    });

    it('calls afterCommit once per committed write, after the commit only', async () => {
      const ctx = context();
      const { api, afterCommits } = built;
      const mine = (): DomainEvent[] => afterCommits.filter((event) => event.tenantId === ctx.actor.tenantId);
      await api.transaction(ctx, async (tx) => {
        const project = await tx.projects.create({ name: 'Hooked', status: 'ACTIVE' });
        await tx.tasks.create({ title: 'One', projectId: project.data.id });
        await tx.tasks.create({ title: 'Two', projectId: project.data.id });
        expect(mine()).toEqual([]);
      });
      const hooked = mine();
      // Only the task entity has the hook: its two writes, with the change set's id.
      expect(hooked.map((event) => event.type)).toEqual(['entity.created', 'entity.created']);
      expect(new Set(hooked.map((event) => event.changeSetId)).size).toBe(1);
      expect(hooked[0]!.changeSetId).not.toBeNull();
    });
  });
}
