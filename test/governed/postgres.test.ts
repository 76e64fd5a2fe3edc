/**
 * The governed HTTP behaviour suite on the PostgreSQL driver: a fresh database per setup on
 * DATABASE_URL's server (CI) or a throwaway local cluster; skipped with the reason otherwise.
 */
import { postgresStorage } from 'cellgate/storage/postgres';
import { afterAll, describe } from 'vitest';
import { driverSkip } from '../storage/drivers.ts';
import { createDatabase, startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { describeGovernedBehaviour } from './behaviour.ts';

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const cleanup: Array<() => Promise<void>> = [];

if (!server.ok) describe.skip(`governed HTTP behaviour (postgres), skipped (reason: ${server.skip})`, () => undefined);
else {
  const base: TestPostgres = server.db;
  describeGovernedBehaviour('postgres', async () => {
    const database = await createDatabase(base.url);
    const driver = postgresStorage({ connectionString: database.url });
    cleanup.push(async () => {
      await driver.close();
      await database.stop();
    });
    return driver;
  });
  afterAll(async () => {
    for (const step of cleanup) await step();
    await base.stop();
  }, 120_000);
}
