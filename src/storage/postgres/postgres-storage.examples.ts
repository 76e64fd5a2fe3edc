/** The `@example` of {@link postgresStorage}, type-checked (build/jsdoc-examples/sync.ts). */
// #region postgresStorage
import { readFileSync } from 'node:fs';
import { createGovernedApi } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';

export const api = createGovernedApi({
  storage: postgresStorage({ connectionString: process.env.DATABASE_URL ?? 'postgres://localhost/app', lockTimeoutMs: 1000 }), // needs pg
  auth: { secret: process.env.CELLGATE_JWT_SECRET },
  resources: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))],
});
await api.migrate(); // one process migrates at a time (advisory lock)
// #endregion
