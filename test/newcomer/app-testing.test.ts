// The createTestApi example of docs/testing.md, verbatim, so it stays true.
import { describe, expect, it } from 'vitest';
import { createTestApi } from 'cellgate/testing';

const task = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'work.task',
  version: '1.0.0',
  description: 'A to-do item',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: { title: { type: 'string' }, done: { type: 'boolean', optional: true } },
} as const;

describe('tasks', () => {
  it('an editor creates and completes a task; the audit trail shows both', async () => {
    const t = await createTestApi({ entities: [task] });
    const editor = { roles: ['editor'] };

    const created = await t.fetch(t.path('tasks'), { method: 'POST', as: editor, json: { title: 'Write tests' } });
    expect(created.status).toBe(201);
    const { data } = await created.json();

    const done = await t.fetch(t.path('tasks', data.id), {
      method: 'PATCH',
      as: editor,
      json: { done: true },
      headers: { 'if-match': `"${data.version}"` },
    });
    expect(done.status).toBe(200);

    const denied = await t.fetch(t.path('tasks'), { method: 'POST', as: { roles: ['viewer'] }, json: { title: 'Nope' } });
    expect(denied.status).toBe(403);

    expect(await t.auditTrail(data.id)).toEqual([
      'entity.created v1 by user 00000000-0000-4000-8000-00000000000a',
      'entity.updated v2 by user 00000000-0000-4000-8000-00000000000a',
    ]);
  });
});
