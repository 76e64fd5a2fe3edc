/**
 * PGlite for the driver runners: one in-memory instance per test file, its `public` schema dropped
 * and made anew for each storage, so each storage starts on an empty database (as the PostgreSQL
 * runners' fresh databases do) without the seconds a new PGlite takes to start.
 */
import { PGlite } from '@electric-sql/pglite';
import type { StorageDriver } from 'cellgate';
import { pgliteStorage } from 'cellgate/storage/pglite';

/** A factory of storage on fresh schemas of one shared instance, and the instance's close. */
export function sharedPglite(): { storage(): StorageDriver; close(): Promise<void> } {
  let instance: Promise<PGlite> | undefined;
  const fresh = async () => {
    instance ??= PGlite.create('memory://');
    const db = await instance;
    await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    return db;
  };
  return {
    // The schema is reset when the storage first touches the database (its migrate).
    storage: () => pgliteStorage({ pglite: fresh }),
    close: async () => {
      if (instance) await (await instance).close();
    },
  };
}
