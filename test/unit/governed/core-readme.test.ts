// The "Unit tests on the in-memory driver" example of docs/testing.md, verbatim, so it stays true.
import { describe, expect, it } from 'vitest';
import { createGovernedService, defineEntity, memoryStorage, type Actor } from 'cellgate';

const Task = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'work.task',
  version: '1.0.0',
  description: 'A to-do item',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['member'], edit: ['member'], admin: ['owner'] },
  fields: { title: { type: 'string' }, done: { type: 'boolean' } },
});

// The code under test: your own function that uses the service.
async function completeTask(tasks: ReturnType<typeof createGovernedService>, context: Parameters<typeof tasks.get>[0], id: string) {
  const task = await tasks.get(context, id);
  return tasks.update(context, id, { expectedVersion: task.meta.version, done: true });
}

describe('completeTask', () => {
  it('marks the task done as a new audited version', async () => {
    const storage = memoryStorage();
    const tasks = createGovernedService({ entity: Task, storage });
    await storage.migrate([tasks.model]);
    const actor: Actor = {
      id: 'u-1',
      type: 'user',
      tenantId: 't-1',
      roles: [],
      workspaces: { 'd4c1a3f2-9b8e-4c7d-a6b5-1e2f3a4b5c6d': ['owner'] },
      permissions: ['audit:read'],
    };
    const context = { actor, scope: { workspaceId: 'd4c1a3f2-9b8e-4c7d-a6b5-1e2f3a4b5c6d' } };
    const created = await tasks.create(context, { title: 'Write tests', done: false });

    const done = await completeTask(tasks, context, created.data.id);

    expect(done.data).toMatchObject({ done: true, version: 2 });
    const history = await tasks.history(context, { resourceId: created.data.id });
    expect(history.data.map((event) => event.eventType)).toEqual(['entity.updated', 'entity.created']);
  });
});
