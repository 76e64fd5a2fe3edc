/** The `@example` of {@link createGovernedService}, type-checked (build/jsdoc-examples/sync.ts). */
// #region createGovernedService
import { readFileSync } from 'node:fs';
import { type Actor, createGovernedService, loadEntity, memoryStorage } from 'cellgate';

const storage = memoryStorage();
const tasks = createGovernedService({ entity: loadEntity(JSON.parse(readFileSync('./task.entity.json', 'utf8'))), storage });
await storage.migrate([tasks.model]);
const workspaceId = crypto.randomUUID();
const actor: Actor = { id: 'u1', type: 'user', tenantId: 't1', roles: [], workspaces: { [workspaceId]: ['editor'] }, permissions: [] };
export const created = await tasks.create({ actor, scope: { workspaceId } }, { title: 'Write tests' });
// #endregion
