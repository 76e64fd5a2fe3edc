/**
 * Set-up mistakes of an app's first hours fail at the call that needs the missing piece, as a
 * `ConfigurationError` that says what to do: `signDevToken` without a secret (a TypeError
 * "reading 'byteLength'" before), and the storage drivers in an app that has not installed their
 * package (the packed tarball in a fresh app, which has neither `better-sqlite3`, `pg` nor `@electric-sql/pglite`): SQLite's
 * first migrate threw a raw "Cannot find package", PostgreSQL's answered 503 SERVICE_UNAVAILABLE
 * as if the database were down.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, signDevToken } from 'cellgate';
import { createApp, packOnce, run } from '../packaging/pack.ts';

describe('signDevToken', () => {
  it('without a secret (an unset environment variable) is a ConfigurationError naming secret', async () => {
    const unset = process.env.CELLGATE_TEST_UNSET_SECRET as string;
    const signing = signDevToken({ secret: unset, tenantId: crypto.randomUUID() });
    await expect(signing).rejects.toBeInstanceOf(ConfigurationError);
    await expect(signing).rejects.toThrow(/^secret: is required: a string or Uint8Array of at least 32 bytes \(got undefined\)/);
  });

  it('without an options object is a ConfigurationError', async () => {
    await expect(signDevToken(undefined as never)).rejects.toThrow(ConfigurationError);
  });
});

describe('storage drivers in an app without their package', () => {
  beforeAll(() => packOnce(), 300_000);

  it('sqliteStorage, postgresStorage and pgliteStorage fail their first migrate with a ConfigurationError naming the package to install', async () => {
    const app = await createApp({
      type: 'module',
      files: {
        'main.mjs': `
import { ConfigurationError } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { postgresStorage } from 'cellgate/storage/postgres';
import { pgliteStorage } from 'cellgate/storage/pglite';
const drivers = {
  sqlite: () => sqliteStorage({ filename: './data/app.db' }),
  // Nothing listens on port 1: were pg installed, this would be an outage, not a set-up error.
  postgres: () => postgresStorage({ connectionString: 'postgres://app:secret@127.0.0.1:1/app' }),
  pglite: () => pgliteStorage(),
};
const seen = {};
for (const [name, make] of Object.entries(drivers)) {
  const storage = make();
  try {
    await storage.migrate([]);
    seen[name] = 'migrated';
  } catch (error) {
    seen[name] = { configuration: error instanceof ConfigurationError, path: error.path, code: error.code, message: error.message };
  }
}
console.log(JSON.stringify(seen));
`,
      },
    });
    const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: app, timeout: 60_000 });
    const seen = JSON.parse(stdout) as Record<string, { configuration: boolean; path: string; code?: string; message: string }>;
    expect(seen.sqlite).toMatchObject({ configuration: true, path: 'better-sqlite3' });
    expect(seen.sqlite!.message).toContain('run `npm install better-sqlite3`');
    expect(seen.postgres).toMatchObject({ configuration: true, path: 'pg' });
    expect(seen.postgres!.code).toBeUndefined();
    expect(seen.postgres!.message).toContain('run `npm install pg`');
    expect(seen.pglite).toMatchObject({ configuration: true, path: '@electric-sql/pglite' });
    expect(seen.pglite!.message).toContain('run `npm install @electric-sql/pglite`');
  }, 300_000);
});
