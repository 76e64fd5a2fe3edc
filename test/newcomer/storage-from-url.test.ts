/**
 * `storageFromUrl` of `cellgate/node`: the stable way for an app to build its driver from
 * `DATABASE_URL` (before, only the reference host's `createStorageFromUrl`, documented as "may
 * change"). Each kind of URL on its real driver (a SQLite file, a PostgreSQL server), driver
 * options passed through, one-line ConfigurationErrors for a missing or bad URL that never show a
 * password, and the host's old name still working on top of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, createGovernedService, type GovernedContext, type StorageDriver } from 'cellgate';
import { createStorageFromUrl } from 'cellgate/host';
import { parseStorageUrl, storageFromUrl } from 'cellgate/node';
import { loadDemoEntity } from '../../src/host/demo.ts';
import { driverSkip } from '../storage/drivers.ts';
import { startTestPostgres } from '../support/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-storage-url-'));
const postgresFiltered = driverSkip('postgres');
const server = postgresFiltered ? { ok: false as const, skip: postgresFiltered } : await startTestPostgres();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (server.ok) await server.db.stop();
});

const customer = loadDemoEntity('customer.entity.json');
const workspaceId = crypto.randomUUID();
const ctx: GovernedContext = {
  actor: { id: 'u1', type: 'user', tenantId: crypto.randomUUID(), roles: ['admin'], workspaces: {}, permissions: [] },
  scope: { workspaceId },
};

/** Writes a customer through `storage`, closes it; resolves the record's id. */
async function write(storage: StorageDriver): Promise<string> {
  const service = createGovernedService({ entity: customer as never, storage });
  await storage.migrate([service.model]);
  try {
    return (await service.create(ctx, { name: 'Ada', email: 'ada@example.com', status: 'active' })).data.id;
  } finally {
    await storage.close();
  }
}

/** Reads the customer back through a second driver built from the same URL. */
async function read(storage: StorageDriver, id: string): Promise<unknown> {
  const service = createGovernedService({ entity: customer as never, storage });
  try {
    return (await service.get(ctx, id)).data.name;
  } finally {
    await storage.close();
  }
}

describe('storageFromUrl', () => {
  it.skipIf(Boolean(driverSkip('sqlite')))('sqlite:<file> opens a durable SQLite file with the sqlite options', async () => {
    const url = `sqlite:${join(dir, 'nested', 'app.db')}`;
    const id = await write(await storageFromUrl(url, { sqlite: { busyTimeoutMs: 1000 } }));
    expect(await read(await storageFromUrl(url), id)).toBe('Ada');
    expect(() => parseStorageUrl('sqlite::memory:')).not.toThrow();
  });

  it.skipIf(!server.ok)(`postgres:// opens PostgreSQL with the postgres options${server.ok ? '' : ` (${server.skip})`}`, async () => {
    if (!server.ok) return;
    const id = await write(await storageFromUrl(server.db.url, { postgres: { max: 2, lockTimeoutMs: 1000 } }));
    expect(await read(await storageFromUrl(server.db.url.replace(/^postgres:/, 'postgresql:')), id)).toBe('Ada');
  });

  it.skipIf(Boolean(driverSkip('pglite')))(
    'pglite:<folder> opens a durable PGlite folder with the pglite options; pglite:memory: keeps it in the process',
    async () => {
      const url = `pglite:${join(dir, 'pglite')}`;
      expect(parseStorageUrl(url)).toEqual({ kind: 'pglite', dataDir: join(dir, 'pglite') });
      expect(parseStorageUrl('pglite:memory:')).toEqual({ kind: 'pglite', dataDir: 'memory://' });
      const id = await write(await storageFromUrl(url, { pglite: { transactionWaitMs: 1000 } }));
      expect(await read(await storageFromUrl(url), id)).toBe('Ada');
      const inMemory = await storageFromUrl('pglite:memory:');
      expect(inMemory.capabilities).toMatchObject({ durable: false, multiProcess: false });
      await inMemory.close();
      expect((await createStorageFromUrl(url)).label).toBe(`pglite ${join(dir, 'pglite')}`);
    },
  );

  it('memory: is the in-process driver', async () => {
    const storage = await storageFromUrl(' memory: ');
    expect(storage.capabilities.durable).toBe(false);
    await storage.close();
  });

  it('passes the driver options through: a bad one is the driver own ConfigurationError', async () => {
    await expect(storageFromUrl('postgres://app:secret@db.internal:5432/app', { postgres: { max: 0 } })).rejects.toThrow(/^options\.max:/);
    await expect(storageFromUrl('sqlite:./never.db', { sqlite: { busyTimeoutMs: -1 } })).rejects.toThrow(/^options\.busyTimeoutMs:/);
  });

  it.each([
    [undefined, 'DATABASE_URL: is not set; expected memory:'],
    ['  ', 'DATABASE_URL: is not set'],
    ['sqlite:', 'names no file'],
    ['pglite:', 'names no folder'],
    ['postgres://', 'is not a valid PostgreSQL URL'],
    ['mysql://app:hunter2@db/app', 'unsupported "mysql://app:***@db/app"'],
  ])('%j is a one-line ConfigurationError naming DATABASE_URL and the forms', async (url, message) => {
    const opening = storageFromUrl(url);
    await expect(opening).rejects.toBeInstanceOf(ConfigurationError);
    await expect(opening).rejects.toMatchObject({ path: 'DATABASE_URL', message: expect.stringContaining(message) });
    await expect(opening).rejects.toMatchObject({ message: expect.not.stringMatching(/hunter2|\n/) });
  });

  it('the host name createStorageFromUrl stays, with its default URL and banner label', async () => {
    const opened = await createStorageFromUrl('postgres://app:secret@db.internal:5432/app');
    expect(opened.label).toBe('postgres postgres://app:***@db.internal:5432/app');
    expect((await createStorageFromUrl('memory:')).label).toMatch(/^memory:/);
    await expect(createStorageFromUrl('mysql://db')).rejects.toThrow(ConfigurationError);
  });
});
