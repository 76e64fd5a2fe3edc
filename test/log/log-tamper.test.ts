/**
 * The tamper suite of `cellgate/testing` on a SQLite file and on PostgreSQL, run as the database
 * owner (SQLite: the file's writer; PostgreSQL: the owner of the tables, which may disable their
 * triggers).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll } from 'vitest';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { runLogTamperSuite } from 'cellgate/testing';
import { driverSkip } from '../storage/drivers.ts';
import { startTestPostgres } from '../support/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-tamper-'));
const filename = join(dir, 'tamper.db');
const pgSkip = driverSkip('postgres');
const postgres = pgSkip ? { ok: false as const, skip: pgSkip } : await startTestPostgres();
const pool = postgres.ok ? new pg.Pool({ connectionString: postgres.db.url, max: 2 }) : undefined;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pool?.end();
  if (postgres.ok) await postgres.db.stop();
});

runLogTamperSuite({
  name: 'sqlite',
  dialect: 'sqlite',
  skip: driverSkip('sqlite'),
  create: () => sqliteStorage({ filename }),
  async exec(sql, params = []) {
    const raw = new Database(filename);
    try {
      const statement = raw.prepare(sql);
      return statement.reader ? (statement.all(...params) as Array<Record<string, unknown>>) : (statement.run(...params), []);
    } finally {
      raw.close();
    }
  },
});

runLogTamperSuite({
  name: 'postgres',
  dialect: 'postgres',
  skip: postgres.ok ? undefined : postgres.skip,
  create: () => postgresStorage({ connectionString: postgres.ok ? postgres.db.url : '' }),
  async exec(sql, params = []) {
    let n = 0;
    return (
      await pool!.query(
        sql.replace(/\?/g, () => `$${++n}`),
        [...params],
      )
    ).rows;
  },
});
