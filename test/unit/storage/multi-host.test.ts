/**
 * The PostgreSQL driver's configuration of replicas and multi-host URLs (issue #32, B37, B38),
 * also as the reference host's DATABASE_URL:
 * how a libpq multi-host URL is split into one URL per host, and the ConfigurationErrors of
 * malformed options, before any connection is made.
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from 'cellgate';
import { createStorageFromUrl } from 'cellgate/host';
import { parseStorageUrl } from 'cellgate/node';
import { postgresStorage } from 'cellgate/storage/postgres';
import { splitHosts } from '../../../src/storage/postgres/multi-host.ts';
import { isLsn, laterLsn, lsnValue } from '../../../src/storage/postgres/replicas/lsn.ts';

describe('splitHosts', () => {
  it('gives one URL per host, keeping credentials, database and other parameters, without target_session_attrs', () => {
    expect(splitHosts('postgres://app:s%40cret@a.internal:5432,b.internal:6432/app?target_session_attrs=read-write&sslmode=require')).toEqual([
      'postgres://app:s%40cret@a.internal:5432/app?sslmode=require',
      'postgres://app:s%40cret@b.internal:6432/app?sslmode=require',
    ]);
    expect(splitHosts('postgresql://a,b/db')).toEqual(['postgresql://a/db', 'postgresql://b/db']);
  });

  it('leaves a single-host URL alone', () => {
    expect(splitHosts('postgres://app@a.internal:5432/app')).toBeUndefined();
  });
});

describe('consistency tokens (LSNs)', () => {
  it('accepts the LSN shape only, capped before the pattern, and orders LSNs as 64-bit numbers', () => {
    expect(isLsn('0/3000148')).toBe(true);
    expect(isLsn('FFFFFFFF/FFFFFFFF')).toBe(true);
    expect(isLsn('0/')).toBe(false);
    expect(isLsn('1/2; DROP')).toBe(false);
    expect(isLsn(`0/${'1'.repeat(100)}`)).toBe(false);
    expect(lsnValue('1/0') > lsnValue('0/FFFFFFFF')).toBe(true);
    expect(laterLsn('0/A', '0/9')).toBe('0/A');
    expect(laterLsn(undefined, '0/9')).toBe('0/9');
  });
});

describe('postgresStorage options', () => {
  it('accepts a multi-host URL and replicas without connecting', async () => {
    const storage = postgresStorage({ connectionString: 'postgres://app@127.0.0.1:1,127.0.0.1:2/app', replicas: ['postgres://app@127.0.0.1:3/app'] });
    expect(storage.consistency).toBeDefined();
    await storage.close();
  });

  it('names the malformed option', () => {
    const bad = (options: Record<string, unknown>) => () => postgresStorage({ connectionString: 'postgres://app@h/app', ...options });
    expect(bad({ replicas: ['mysql://h/app'] })).toThrow(ConfigurationError);
    expect(bad({ replicas: ['mysql://h/app'] })).toThrow(/replicas\.0/);
    expect(bad({ replicas: 'postgres://h/app' })).toThrow(/replicas/);
    expect(bad({ maxLagMs: -1 })).toThrow(/maxLagMs/);
    expect(bad({ replicaWaitMs: 1.5 })).toThrow(/replicaWaitMs/);
    expect(() => postgresStorage({ connectionString: 'postgres://a,/app' })).toThrow(/connectionString/);
  });
});

describe('a multi-host DATABASE_URL', () => {
  it('is taken by parseStorageUrl and the reference host, whose banner masks the password', async () => {
    const url = 'postgres://app:secret@127.0.0.1:1,127.0.0.1:2/app?target_session_attrs=read-write';
    expect(parseStorageUrl(url)).toEqual({ kind: 'postgres', connectionString: url });
    const opened = await createStorageFromUrl(url);
    try {
      expect(opened.label).toBe('postgres postgres://app:***@127.0.0.1:1,127.0.0.1:2/app?target_session_attrs=read-write');
    } finally {
      await opened.storage.close();
    }
    // An empty host is refused when the driver is built (options.connectionString).
    await expect(createStorageFromUrl('postgres://app@a,/app')).rejects.toThrow(ConfigurationError);
  });
});
