/**
 * Relations on the driver under test (docs/entities.md#relations): references are checked inside
 * the write's transaction, `on_delete` restricts, cascades or clears in the same transaction and
 * change set, a cascade is bounded and all or nothing, and a delete racing a create that
 * references its record leaves no dangling reference.
 */
import { beforeAll, expect } from 'vitest';
import { defineEntity } from '../entity-document/index.ts';
import { CellgateError } from '../errors.ts';
import { createGovernedApi } from '../governed/http/api.ts';
import type { GovernedContext } from '../governed/types.ts';
import { MAX_CASCADE_RECORDS } from '../limits.ts';
import type { StorageDriver } from '../storage/types.ts';
import { workspaceAdminContext } from './storage-conformance-fixtures.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

const permissions = { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] };
const base = { $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json', version: '1.0.0', governance_tier: 'tier-1', permissions } as const;

/** A project of a workspace: what the other entities reference. */
export const RelationProject = defineEntity({
  ...base,
  name: 'Project',
  key: 'relations.project',
  description: 'A project',
  scope: 'workspace-shared',
  fields: { name: { type: 'string' } },
});

/** A task of a cell, deleted with its project. */
export const RelationTask = defineEntity({
  ...base,
  name: 'Task',
  key: 'relations.task',
  description: 'A task of a project',
  scope: 'cell-isolated',
  fields: { title: { type: 'string' }, project_id: { type: 'string', format: 'uuid', references: { entity: 'relations.project', on_delete: 'cascade' } } },
});

/** A comment of a task, deleted with its task (so with its task's project too). */
export const RelationComment = defineEntity({
  ...base,
  name: 'Comment',
  key: 'relations.comment',
  description: 'A comment on a task',
  scope: 'cell-isolated',
  fields: { body: { type: 'string' }, task_id: { type: 'string', format: 'uuid', references: { entity: 'relations.task', on_delete: 'cascade' } } },
});

/** A milestone: its project cannot be deleted while it lives. */
export const RelationMilestone = defineEntity({
  ...base,
  name: 'Milestone',
  key: 'relations.milestone',
  description: 'A milestone of a project',
  scope: 'workspace-shared',
  fields: { title: { type: 'string' }, project_id: { type: 'string', format: 'uuid', references: { entity: 'relations.project' } } },
});

/** A label: loses its project (set_null) when the project is deleted. */
export const RelationLabel = defineEntity({
  ...base,
  name: 'Label',
  key: 'relations.label',
  description: 'A label, optionally of a project',
  scope: 'workspace-shared',
  fields: {
    text: { type: 'string' },
    project_id: { type: 'string', format: 'uuid', nullable: true, references: { entity: 'relations.project', on_delete: 'set_null' } },
  },
});

const context = (): GovernedContext =>
  workspaceAdminContext(['relations.projects.read', 'relations.tasks.read', 'relations.comments.read', 'relations.milestones.read', 'relations.labels.read'], {
    requestId: 'req-relations',
    traceId: null,
    ip: null,
    userAgent: null,
  });

/** The same actor in another cell of the same workspace. */
const otherCell = (ctx: GovernedContext): GovernedContext => ({ ...ctx, scope: { ...ctx.scope, cellId: crypto.randomUUID() } });

const codeOf = (error: unknown): string | undefined => (error instanceof CellgateError ? error.code : undefined);
const fail = <T>(promise: Promise<T>): Promise<unknown> =>
  promise.then(
    () => expect.fail('expected a refusal'),
    (error: unknown) => error,
  );

function buildApi(storage: StorageDriver, lockedBody = 'locked') {
  return createGovernedApi({
    storage,
    auth: { secret: 'relations-conformance-secret-0123456789' },
    resources: {
      projects: RelationProject,
      tasks: RelationTask,
      comments: {
        entity: RelationComment,
        // A comment that refuses to be deleted: the child write that fails inside a cascade.
        rules: {
          validate: (_input, { operation, current }) => (operation === 'delete' && current?.body === lockedBody ? [{ path: 'body', message: 'locked' }] : []),
        },
      },
      milestones: RelationMilestone,
      labels: RelationLabel,
    },
  });
}

/** Reference cases, registered inside the suite's describe. */
export function referenceConformanceCases(driver: Current): void {
  describe('references between entities on this driver', () => {
    let api: ReturnType<typeof buildApi>;
    beforeAll(async () => {
      api = buildApi(driver());
      await api.migrate();
    });
    // Every audit record of the case's tenant (each case has a tenant of its own), newest first.
    const auditOf = async (ctx: GovernedContext) => (await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 100 })).records;
    const services = () => {
      const { projects, tasks, comments, milestones, labels } = api.resources;
      return { projects: projects.service, tasks: tasks.service, comments: comments.service, milestones: milestones.service, labels: labels.service };
    };

    it('refuses a create whose reference names no live record of its scope, and writes nothing', async () => {
      const ctx = context();
      const { projects, tasks } = services();
      const missing = await fail(tasks.create(ctx, { title: 'a', projectId: crypto.randomUUID() }));
      expect(codeOf(missing)).toBe('REFERENCE_NOT_FOUND');
      expect((missing as CellgateError).details).toMatchObject({ fields: [{ path: 'projectId' }] });
      const deleted = await projects.create(ctx, { name: 'gone' });
      await projects.delete(ctx, deleted.data.id, { expectedVersion: 1 });
      expect(codeOf(await fail(tasks.create(ctx, { title: 'b', projectId: deleted.data.id })))).toBe('REFERENCE_NOT_FOUND');
      // A project of another workspace of the same tenant is not visible from this one.
      const far = crypto.randomUUID();
      const farContext = { ...ctx, actor: { ...ctx.actor, workspaces: { ...ctx.actor.workspaces, [far]: ['admin'] } }, scope: { workspaceId: far } };
      const elsewhere = await projects.create(farContext, { name: 'far' });
      expect(codeOf(await fail(tasks.create(ctx, { title: 'c', projectId: elsewhere.data.id })))).toBe('REFERENCE_NOT_FOUND');
      expect((await tasks.list(ctx)).meta.total).toBe(0);
      expect((await auditOf(ctx)).filter((audit) => audit.resourceType === 'relations.Task@v1')).toEqual([]);
    });

    it('accepts a reference from any cell of the workspace and filters a list by it', async () => {
      const ctx = context();
      const { projects, tasks } = services();
      const project = await projects.create(ctx, { name: 'p' });
      const other = await projects.create(ctx, { name: 'q' });
      const first = await tasks.create(ctx, { title: 'one', projectId: project.data.id });
      await tasks.create(otherCell(ctx), { title: 'two', projectId: project.data.id });
      await tasks.create(ctx, { title: 'three', projectId: other.data.id });
      const filtered = await tasks.list(ctx, { filters: [{ field: 'projectId', operator: 'equals', value: project.data.id }] });
      expect(filtered.data.map((task) => task.id)).toEqual([first.data.id]);
    });

    it('checks a merge PATCH and a JSON Patch that move the reference, and leaves the record unchanged when refused', async () => {
      const ctx = context();
      const { projects, tasks } = services();
      const project = await projects.create(ctx, { name: 'p' });
      const task = await tasks.create(ctx, { title: 't', projectId: project.data.id });
      const nowhere = crypto.randomUUID();
      expect(codeOf(await fail(tasks.update(ctx, task.data.id, { expectedVersion: 1, projectId: nowhere })))).toBe('REFERENCE_NOT_FOUND');
      const patched = await fail(tasks.update(ctx, task.data.id, { expectedVersion: 1, patch: [{ op: 'replace', path: '/projectId', value: nowhere }] }));
      expect(codeOf(patched)).toBe('REFERENCE_NOT_FOUND');
      expect((await tasks.get(ctx, task.data.id)).data).toMatchObject({ version: 1, projectId: project.data.id });
      // A PATCH that leaves the reference alone does not re-check it.
      expect((await tasks.update(ctx, task.data.id, { expectedVersion: 1, title: 'u' })).data.version).toBe(2);
    });

    it('refuses a rollback that would restore a reference to a deleted record', async () => {
      const ctx = context();
      const { projects, milestones } = services();
      const first = await projects.create(ctx, { name: 'first' });
      const second = await projects.create(ctx, { name: 'second' });
      const milestone = await milestones.create(ctx, { title: 'm', projectId: first.data.id });
      await milestones.update(ctx, milestone.data.id, { expectedVersion: 1, projectId: second.data.id });
      await projects.delete(ctx, first.data.id, { expectedVersion: 1 });
      expect(codeOf(await fail(milestones.rollback(ctx, milestone.data.id, { targetVersion: 1 })))).toBe('REFERENCE_NOT_FOUND');
      expect((await milestones.get(ctx, milestone.data.id)).data.version).toBe(2);
    });

    it('restrict: refuses to delete a referenced record with the count of its referrers', async () => {
      const ctx = context();
      const { projects, milestones } = services();
      const project = await projects.create(ctx, { name: 'p' });
      const a = await milestones.create(ctx, { title: 'a', projectId: project.data.id });
      await milestones.create(ctx, { title: 'b', projectId: project.data.id });
      const refused = await fail(projects.delete(ctx, project.data.id, { expectedVersion: 1 }));
      expect(codeOf(refused)).toBe('REFERENCED');
      expect((refused as CellgateError).details).toMatchObject({
        count: 2,
        more: false,
        referencedBy: [{ resource: 'milestones', field: 'projectId', count: 2 }],
      });
      expect((await projects.get(ctx, project.data.id)).data.deletedAt).toBeNull();
      await milestones.delete(ctx, a.data.id, { expectedVersion: 1 });
      const remaining = await milestones.list(ctx, { filters: [{ field: 'projectId', operator: 'equals', value: project.data.id }] });
      for (const milestone of remaining.data) await milestones.delete(ctx, milestone.id, { expectedVersion: milestone.version });
      expect((await projects.delete(ctx, project.data.id, { expectedVersion: 1 })).data.deletedAt).not.toBeNull();
    });

    it('cascade and set_null: one delete changes every referrer in its transaction, each with its own version and audit record', async () => {
      const ctx = context();
      const { projects, tasks, comments, labels } = services();
      const project = await projects.create(ctx, { name: 'p' });
      const taskIds: string[] = [];
      const commentIds: string[] = [];
      for (const cell of [ctx, otherCell(ctx)]) {
        const task = await tasks.create(cell, { title: 't', projectId: project.data.id });
        taskIds.push(task.data.id);
        commentIds.push((await comments.create(cell, { body: 'c', taskId: task.data.id })).data.id);
      }
      const label = await labels.create(ctx, { text: 'l', projectId: project.data.id });
      const keep = await projects.create(ctx, { name: 'keep' });
      const kept = await tasks.create(ctx, { title: 'kept', projectId: keep.data.id });
      await projects.delete(ctx, project.data.id, { expectedVersion: 1 });
      expect((await tasks.get(ctx, taskIds[0]!, { includeDeleted: true })).data).toMatchObject({ version: 2, deletedBy: ctx.actor.id });
      expect((await tasks.get(ctx, kept.data.id)).data.deletedAt).toBeNull();
      expect((await comments.list(ctx)).meta.total).toBe(0);
      expect((await labels.get(ctx, label.data.id)).data).toMatchObject({ version: 2, projectId: null });
      const byResource = new Map((await auditOf(ctx)).filter((record) => record.eventType !== 'entity.created').map((record) => [record.resourceId, record]));
      for (const id of [...taskIds, ...commentIds]) expect(byResource.get(id)).toMatchObject({ eventType: 'entity.deleted', resourceVersion: 2 });
      expect(byResource.get(label.data.id)).toMatchObject({ eventType: 'entity.updated', resourceVersion: 2 });
      // Every record the delete changed carries one change-set id, the delete's own.
      const changeSets = new Set([project.data.id, ...taskIds, ...commentIds, label.data.id].map((id) => byResource.get(id)?.changeSetId));
      expect(changeSets.size).toBe(1);
      expect([...changeSets][0]).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    });

    it('restoring a cascaded delete by rollback restores what the cascade deleted, as one change set', async () => {
      const ctx = context();
      const { projects, tasks, comments } = services();
      const project = await projects.create(ctx, { name: 'p' });
      const first = await tasks.create(ctx, { title: 'first', projectId: project.data.id });
      const second = await tasks.create(ctx, { title: 'second', projectId: project.data.id });
      const comment = await comments.create(ctx, { body: 'c', taskId: first.data.id });
      // Deleted on its own before: not the cascade's, so it stays deleted.
      await tasks.delete(ctx, second.data.id, { expectedVersion: 1 });
      await projects.delete(ctx, project.data.id, { expectedVersion: 1 });
      const restored = await projects.rollback(ctx, project.data.id, { targetVersion: 1 });
      expect(restored.data).toMatchObject({ version: 3, deletedAt: null });
      expect((await tasks.get(ctx, first.data.id)).data).toMatchObject({ version: 3, deletedAt: null, title: 'first' });
      expect((await comments.get(ctx, comment.data.id)).data).toMatchObject({ version: 3, deletedAt: null });
      expect((await tasks.get(ctx, second.data.id, { includeDeleted: true })).data).toMatchObject({ version: 2, deletedAt: expect.any(String) });
      const restores = (await auditOf(ctx)).filter((audit) => audit.eventType === 'entity.restored');
      const byResource = new Map(restores.map((audit) => [audit.resourceId, audit.changeSetId]));
      expect(byResource.get(first.data.id)).toEqual(byResource.get(project.data.id));
      expect(byResource.get(comment.data.id)).toEqual(byResource.get(project.data.id));
      expect(byResource.get(project.data.id)).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
      expect(byResource.has(second.data.id)).toBe(false);
    });

    it('a cascade where one child write fails changes nothing', async () => {
      const ctx = context();
      const { projects, tasks, comments } = services();
      const project = await projects.create(ctx, { name: 'p' });
      const task = await tasks.create(ctx, { title: 't', projectId: project.data.id });
      await comments.create(ctx, { body: 'free', taskId: task.data.id });
      await comments.create(ctx, { body: 'locked', taskId: task.data.id });
      expect(codeOf(await fail(projects.delete(ctx, project.data.id, { expectedVersion: 1 })))).toBe('BUSINESS_RULE_VIOLATION');
      expect((await projects.get(ctx, project.data.id)).data.version).toBe(1);
      expect((await tasks.get(ctx, task.data.id)).data.version).toBe(1);
      expect((await comments.list(ctx)).data.map((comment) => [comment.body, comment.version]).sort()).toEqual([
        ['free', 1],
        ['locked', 1],
      ]);
      expect((await auditOf(ctx)).filter((audit) => audit.eventType === 'entity.deleted')).toEqual([]);
    });

    it(`refuses a cascade past ${MAX_CASCADE_RECORDS} records before writing anything`, async () => {
      const ctx = context();
      const { projects, tasks } = services();
      const project = await projects.create(ctx, { name: 'big' });
      await api.transaction(ctx, async (tx) => {
        for (let index = 0; index <= MAX_CASCADE_RECORDS; index += 1) await tx.tasks!.create({ title: `t${index}`, projectId: project.data.id });
      });
      const refused = await fail(projects.delete(ctx, project.data.id, { expectedVersion: 1 }));
      expect(codeOf(refused)).toBe('REFERENCED');
      expect((refused as CellgateError).details).toMatchObject({ limit: MAX_CASCADE_RECORDS });
      expect((await tasks.list(ctx, { pageSize: 1 })).meta.total).toBe(MAX_CASCADE_RECORDS + 1);
    });

    it('a delete racing a create that references its record: exactly one wins, no dangling reference', async () => {
      const ctx = context();
      const { projects, milestones } = services();
      for (let round = 0; round < 6; round += 1) {
        const project = await projects.create(ctx, { name: `race ${round}` });
        const [deleted, created] = await Promise.allSettled([
          projects.delete(ctx, project.data.id, { expectedVersion: 1 }),
          milestones.create(ctx, { title: 'm', projectId: project.data.id }),
        ]);
        const outcome = [deleted.status, created.status].join('/');
        expect(['fulfilled/rejected', 'rejected/fulfilled']).toContain(outcome);
        if (deleted.status === 'rejected') expect(codeOf(deleted.reason)).toBe('REFERENCED');
        if (created.status === 'rejected') expect(codeOf(created.reason)).toBe('REFERENCE_NOT_FOUND');
        const live = await milestones.list(ctx, { filters: [{ field: 'projectId', operator: 'equals', value: project.data.id }] });
        const target = await projects.get(ctx, project.data.id, { includeDeleted: true });
        expect(live.meta.total > 0 && target.data.deletedAt !== null).toBe(false);
      }
    });
  });
}
