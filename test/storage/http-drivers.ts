/**
 * The three drivers an HTTP test runs on (memory, a SQLite file, a throwaway PostgreSQL), each
 * skipped with its reason when STORAGE_DRIVERS leaves it out or PostgreSQL cannot start. The
 * folder and the cluster are removed after the file's tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { memoryStorage, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';

/** One driver of a test file: its name, why it is skipped (if it is), and how to open it. */
export interface HttpDriver {
  name: string;
  skip: string | undefined;
  create: () => StorageDriver;
}

/**
 * The drivers, with SQLite files under a fresh folder named after `prefix`: `sqliteFile` when
 * given (every SQLite driver opened shares it), else a new file per driver opened.
 */
export async function httpDrivers(prefix: string, sqliteFile?: string): Promise<HttpDriver[]> {
  const dir = mkdtempSync(join(tmpdir(), `cellgate-${prefix}-`));
  const pgSkip = driverSkip('postgres');
  const postgres = pgSkip ? { ok: false as const, skip: pgSkip } : await startTestPostgres();
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (postgres.ok) await postgres.db.stop();
  });
  return [
    { name: 'memory', skip: driverSkip('memory'), create: () => memoryStorage() },
    { name: 'sqlite', skip: driverSkip('sqlite'), create: () => sqliteStorage({ filename: join(dir, sqliteFile ?? `${crypto.randomUUID()}.db`) }) },
    {
      name: 'postgres',
      skip: postgres.ok ? undefined : postgres.skip,
      create: () => postgresStorage({ connectionString: postgres.ok ? postgres.db.url : '' }),
    },
  ];
}
