/** The `@example` of {@link createTestApi}, type-checked (build/jsdoc-examples/sync.ts). */
// #region createTestApi
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createTestApi } from 'cellgate/testing';

it('an editor creates a task', async () => {
  const t = await createTestApi({ entities: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))] });
  const created = await t.fetch(t.path('tasks'), { method: 'POST', as: { roles: ['editor'] }, json: { title: 'Write tests' } });
  expect(created.status).toBe(201);
  await t.close();
});
// #endregion
