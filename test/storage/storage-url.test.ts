/** The reference host's `DATABASE_URL` forms. */
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from 'cellgate';
import { createStorageFromUrl, DEFAULT_DATABASE_URL } from 'cellgate/host';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-url-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createStorageFromUrl', () => {
  it('opens memory:, sqlite::memory: and a sqlite file (creating its folder)', async () => {
    const memory = await createStorageFromUrl('memory:');
    expect(memory.storage.name).toBe('memory');
    await memory.storage.close();
    const inMemory = await createStorageFromUrl('sqlite::memory:');
    expect([inMemory.storage.name, inMemory.storage.capabilities.durable]).toEqual(['sqlite', false]);
    await inMemory.storage.close();
    const file = join(dir, 'sub', 'dev.db');
    const sqlite = await createStorageFromUrl(`sqlite:${file}`);
    await sqlite.storage.migrate([]);
    expect(existsSync(file)).toBe(true);
    expect(sqlite.label).toBe(`sqlite ${file}`);
    await sqlite.storage.close();
  });

  it('defaults to a SQLite file under ./.cellgate', () => {
    expect(DEFAULT_DATABASE_URL).toBe('sqlite:./.cellgate/dev.db');
  });

  it('opens postgres:// lazily and masks the password in its label', async () => {
    const opened = await createStorageFromUrl('postgresql://app:s3cret@127.0.0.1:5432/app');
    expect(opened.storage.name).toBe('postgres');
    expect(opened.label).toBe('postgres postgresql://app:***@127.0.0.1:5432/app');
    await opened.storage.close();
  });

  it('refuses anything else with one line that hides passwords', async () => {
    for (const url of ['mysql://root:pw@h/db', 'sqlite:', 'postgres://', 'nonsense']) {
      const error = await createStorageFromUrl(url).catch((caught: unknown) => caught);
      expect(error, url).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).not.toContain('\n');
      expect((error as Error).message).not.toContain(':pw@');
    }
  });
});
