// The typed createTestApi example of docs/testing.md ("With your app's own options"), verbatim
// between the markers, and a check that the guide still shows exactly this code (issue #28).
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { CellgateError, defineEntity, type GovernedApiOptions } from 'cellgate';
import { createTestApi } from 'cellgate/testing';

// --- sample ---
const Task = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'work.task',
  version: '1.0.0',
  description: 'A to-do item',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: { title: { type: 'string' }, done: { type: 'boolean', optional: true } },
});

// What the app passes to createGovernedApi, minus storage and auth (here a rule in a hook).
const appOptions = {
  resources: { tasks: Task },
  hooks: {
    onRequest: (request: Request) => {
      if (request.method === 'DELETE') throw new CellgateError('FORBIDDEN', 'Tasks are never deleted.');
    },
  },
} satisfies Partial<GovernedApiOptions>;

it('an editor creates and completes a task; a viewer may not create one', async () => {
  const t = await createTestApi(appOptions);
  const editor = t.as({ roles: ['editor'] });
  const { data } = await editor.tasks.create({ title: 'Write tests' }); // data: the Task record
  const done = await editor.tasks.update(data.id, { expectedVersion: data.version, done: true });
  expect(done.data.done).toBe(true);
  await expect(t.as({ roles: ['viewer'] }).tasks.create({ title: 'Nope' })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
  await expect(t.as({ roles: ['admin'] }).tasks.delete(data.id, done.meta.version)).rejects.toThrow('Tasks are never deleted.');
});
// --- end ---

it('is the sample docs/testing.md shows', () => {
  const guide = readFileSync(new URL('../../docs/testing.md', import.meta.url), 'utf8');
  const own = readFileSync(new URL(import.meta.url), 'utf8');
  const sample = own.slice(own.indexOf('// --- sample ---\n') + 18, own.indexOf('// --- end ---'));
  expect(guide).toContain(sample);
});
