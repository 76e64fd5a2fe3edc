/** The `@example` of {@link createGovernedResource}, type-checked (build/jsdoc-examples/sync.ts). */
// #region createGovernedResource
import { readFileSync } from 'node:fs';
import { createGovernedResource, loadEntity, memoryStorage } from 'cellgate';

const customers = createGovernedResource({
  entity: loadEntity(JSON.parse(readFileSync('./customer.entity.json', 'utf8'))),
  storage: memoryStorage(),
  auth: { secret: process.env.CELLGATE_JWT_SECRET },
});
await customers.migrate();
// GET/POST /v1/workspaces/:workspaceId/customers, GET/PATCH/DELETE …/customers/:id, …/:id/versions
export const response = await customers(new Request('http://localhost/v1/workspaces/00000000-0000-4000-8000-000000000002/customers'));
// #endregion
