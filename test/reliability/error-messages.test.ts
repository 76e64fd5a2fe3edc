/**
 * Errors that say enough: a full SQLite disk answers 507 `INSUFFICIENT_STORAGE` saying storage
 * is full (a retry cannot help until space is freed), and a PostgreSQL that cannot be reached at
 * start makes the reference host and `cellgate migrate` print one line naming host, port,
 * database and cause, never the password.
 */
import { createServer } from 'node:net';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as migrateCommand } from '../../src/cli/commands/migrate.ts';
import { CellgateError } from 'cellgate';
import { errorStatus } from '../../src/errors.ts';
import { sqliteStorage, type SqliteClient } from 'cellgate/storage/sqlite';
import { conformanceModels, freshScope, invoiceFields, invoiceModel, newRecord } from '../../src/testing/storage-conformance-fixtures.ts';
import { startHostProcess } from '../storage/fixtures/host-process.ts';

/** A port nothing listens on (taken and released again). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

afterEach(() => vi.restoreAllMocks());

describe('a full SQLite database', () => {
  it('answers 507 INSUFFICIENT_STORAGE saying storage is full, without Retry-After', async () => {
    const client = new Database(':memory:');
    const driver = sqliteStorage({ database: client as unknown as SqliteClient });
    await driver.migrate(conformanceModels);
    // The page limit stands in for a full disk: SQLite reports both as SQLITE_FULL.
    const pages = Number(client.pragma('page_count', { simple: true }));
    client.pragma(`max_page_count = ${pages + 1}`);
    const big = newRecord(freshScope(), invoiceFields({ note: 'x'.repeat(200_000) }));
    const error = await driver.transaction((session) => session.insert(invoiceModel, big)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CellgateError);
    expect((error as CellgateError).code).toBe('INSUFFICIENT_STORAGE');
    expect((error as CellgateError).status).toBe(507);
    expect(errorStatus.INSUFFICIENT_STORAGE).toBe(507);
    expect((error as CellgateError).message).toMatch(/storage is full/i);
    expect((error as CellgateError).headers).toBeUndefined();
    await driver.close();
    client.close();
  });
});

describe('an unreachable PostgreSQL at start', () => {
  it('stops the reference host with one line naming host, port, database and cause, not the password', async () => {
    const port = await closedPort();
    const failure = await startHostProcess({ DATABASE_URL: `postgres://app:s3cret-pw@127.0.0.1:${port}/appdb`, CELLGATE_JWT_SECRET: 'x'.repeat(32) }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/exited with 1/);
    const line = failure.split('\n').find((text) => text.includes('reference host:'))!;
    expect(line).toContain(`127.0.0.1:${port}`);
    expect(line).toContain('appdb');
    expect(line).toMatch(/ECONNREFUSED/);
    expect(failure).not.toContain('s3cret-pw');
  }, 60_000);

  it('makes `cellgate migrate` exit 1 with the same line', async () => {
    const port = await closedPort();
    const printed: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void printed.push(String(line)));
    expect(await migrateCommand(['--database-url', `postgres://app:s3cret-pw@127.0.0.1:${port}/appdb`])).toBe(1);
    expect(printed.join('\n')).toMatch(new RegExp(`cellgate migrate: cannot use PostgreSQL at 127\\.0\\.0\\.1:${port} \\(database appdb\\): .*ECONNREFUSED`));
    expect(printed.join('\n')).not.toContain('s3cret-pw');
  });
});
