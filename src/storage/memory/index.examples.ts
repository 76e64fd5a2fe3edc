/** The `@example` of {@link memoryStorage}, type-checked (build/jsdoc-examples/sync.ts). */
// #region memoryStorage
import { readFileSync } from 'node:fs';
import { createGovernedApi, memoryStorage } from 'cellgate';

// One per test: nothing is shared between tests, nothing outlives the process.
const storage = memoryStorage();
export const api = createGovernedApi({
  storage,
  auth: { secret: 'a-test-secret-of-32-bytes-or-more!' },
  resources: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))],
});
await api.migrate();
// #endregion
