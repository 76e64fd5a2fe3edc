// The typed test of docs/entities.md ("A typed test"), verbatim between the markers, run here,
// and a check that the guide still shows exactly this code (issue #28).
import { readFileSync } from 'node:fs';
// --- sample ---
import { expect, it } from 'vitest';
import { BusinessRuleError, defineEntity, rulesFor } from 'cellgate';
import { createTestApi } from 'cellgate/testing';

const common = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  version: '1.0.0',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['member'], edit: ['member'], admin: ['member'] },
} as const;
const Project = defineEntity({ ...common, name: 'Project', key: 'pm.project', description: 'A project', fields: { name: { type: 'string' } } });
const Task = defineEntity({ ...common, name: 'Task', key: 'pm.task', description: 'A task', fields: { title: { type: 'string' } } });
const taskRules = rulesFor(Task, {
  validate(_input, { next }) {
    if (next?.title === 'TODO') throw new BusinessRuleError('Say what to do', [{ path: 'title', message: 'Too vague' }]);
  },
});
// What the app passes to createGovernedApi, minus storage and auth.
const appOptions = { resources: { projects: Project, tasks: { entity: Task, rules: taskRules } } } as const;

it('refuses a vague task', async () => {
  const t = await createTestApi(appOptions);
  const member = t.as({ roles: ['member'] });
  const created = await member.tasks.create({ title: 'Write the release notes' });
  expect(created.data.title).toBe('Write the release notes');
  await expect(member.tasks.create({ title: 'TODO' })).rejects.toMatchObject({ code: 'BUSINESS_RULE_VIOLATION', status: 422 });
  // @ts-expect-error a misspelt field does not compile
  await member.tasks.create({ titel: 'x' }).catch(() => undefined);
});
// --- end ---

it('is the sample docs/entities.md shows', () => {
  const guide = readFileSync(new URL('../../docs/entities.md', import.meta.url), 'utf8');
  const own = readFileSync(new URL(import.meta.url), 'utf8');
  const sample = own.slice(own.indexOf('// --- sample ---\n') + 18, own.indexOf('// --- end ---'));
  expect(guide).toContain(sample);
});
