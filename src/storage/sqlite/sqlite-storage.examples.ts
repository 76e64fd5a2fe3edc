/** The `@example` of {@link sqliteStorage}, type-checked (build/jsdoc-examples/sync.ts). */
// #region sqliteStorage
import { readFileSync } from 'node:fs';
import { createGovernedApi } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';

export const api = createGovernedApi({
  storage: sqliteStorage({ filename: './.cellgate/app.db' }), // needs better-sqlite3
  auth: { secret: process.env.CELLGATE_JWT_SECRET },
  resources: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))],
});
await api.migrate(); // creates or upgrades the tables
// #endregion
