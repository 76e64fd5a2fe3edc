/** The `@example` of {@link createGovernedApi}, type-checked (build/jsdoc-examples/sync.ts). */
// #region createGovernedApi
import { readFileSync } from 'node:fs';
import { composeHandlers, createContractHandler, createGovernedApi, memoryStorage } from 'cellgate';

const api = createGovernedApi({
  storage: memoryStorage(), // or sqliteStorage / postgresStorage: docs/storage.md
  auth: { secret: process.env.CELLGATE_JWT_SECRET },
  resources: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))],
});
await api.migrate();
export const handler = composeHandlers(createContractHandler(), api);
// #endregion
