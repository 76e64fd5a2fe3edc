/**
 * What an erasure leaves on disk, and `eraseRecord(…, { vacuum })` reclaiming it
 * (docs/erasure.md#what-stays-on-disk). The bytes of the database files are read as they are: on
 * SQLite the database file and its WAL; on PostgreSQL each touched table's heap file, read by the
 * server itself (`pg_read_binary_file` of `pg_relation_filepath`, after a `CHECKPOINT`). An erased
 * value lingers in both after a plain erasure; after a vacuum it is in no file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createGovernedService, defineEntity, eraseRecord, memoryStorage, type GovernedService } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { driverSkip } from '../storage/drivers.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { workspaceAdminContext } from '../../src/testing/storage-conformance-fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-erase-vacuum-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Member = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Member',
  key: 'club.member',
  version: '1.0.0',
  description: 'A club member',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { nickname: { type: 'string' }, contact: { type: 'string', nullable: true } },
});

const meta = { requestId: 'erase-vacuum', traceId: null, ip: null, userAgent: null };

/** A record whose `contact` holds `canary` through three versions (live row, version states, audit, outbox), erased with `options`. */
async function writeAndErase(service: GovernedService, canary: string, vacuum?: 'plain' | 'full') {
  const ctx = workspaceAdminContext([], meta);
  const created = await service.create(ctx, { nickname: 'kim', contact: `${canary} +49 170 5555` });
  await service.update(ctx, created.data.id, { expectedVersion: 1, nickname: 'kimmy' });
  await service.update(ctx, created.data.id, { expectedVersion: 2, nickname: 'kim k.' });
  return eraseRecord(service, ctx, created.data.id, { reason: 'request #4711', fields: ['contact'], ...(vacuum ? { vacuum } : {}) });
}

describe('on a SQLite file', () => {
  const file = join(dir, 'members.db');
  /** Whether the database file or its WAL holds `canary`. */
  const onDisk = (canary: string) => [file, `${file}-wal`].some((path) => existsSync(path) && readFileSync(path).includes(canary));

  it('an erased value stays in the file until a vacuum; { vacuum } rebuilds the file and truncates the WAL', async () => {
    const storage = sqliteStorage({ filename: file });
    try {
      const service = createGovernedService({ entity: Member, storage });
      await storage.migrate([service.model]);
      const kept = await writeAndErase(service, 'CANARY-SQLITE-KEPT');
      expect(kept.vacuumed).toBeNull();
      // The problem: SQLite keeps freed page content and old WAL frames.
      expect(onDisk('CANARY-SQLITE-KEPT')).toBe(true);

      const erased = await writeAndErase(service, 'CANARY-SQLITE-GONE', 'plain');
      expect(erased.vacuumed).toBe('plain');
      // The whole file was rebuilt: the earlier erasure's leftovers are gone too.
      expect(onDisk('CANARY-SQLITE-GONE')).toBe(false);
      expect(onDisk('CANARY-SQLITE-KEPT')).toBe(false);
      expect(readFileSync(`${file}-wal`).length).toBe(0);
    } finally {
      await storage.close();
    }
  });
});

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const pgSkip = server.ok ? undefined : server.skip;

describe.skipIf(Boolean(pgSkip))(`on PostgreSQL${pgSkip ? ` (skipped: ${pgSkip})` : ''}`, () => {
  const url = server.ok ? server.db.url : '';
  afterAll(async () => {
    if (server.ok) await server.db.stop();
  });

  /** Runs `fn` with a client of its own (a superuser on the throwaway cluster). */
  async function inspecting<T>(fn: (db: pg.Client) => Promise<T>): Promise<T> {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      return await fn(db);
    } finally {
      await db.end();
    }
  }

  /** Why a test cannot look at the pages here (reading files and pages needs a superuser; pageinspect may be missing on a shared server). */
  const cannotInspect = () =>
    inspecting(async (db) => {
      const { rows } = await db.query<{ super: boolean; pageinspect: boolean }>(
        `SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS super,
                EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pageinspect') AS pageinspect`,
      );
      if (!rows[0]!.super) return 'the connection is not a superuser, which reading table files and pages needs';
      return rows[0]!.pageinspect ? undefined : 'the server has no pageinspect extension';
    });

  const touched = (service: GovernedService) => [service.model.table, 'cellgate_version_state', 'cellgate_audit_log', 'cellgate_events'];

  /** Whether the heap file of any table the erasure touched holds `canary`, as the server reads it after a checkpoint. */
  const onDisk = (service: GovernedService, canary: string) =>
    inspecting(async (db) => {
      await db.query('CHECKPOINT');
      for (const table of touched(service)) {
        const { rows } = await db.query<{ bytes: Buffer }>('SELECT pg_read_binary_file(pg_relation_filepath($1::regclass)) AS bytes', [table]);
        if (rows[0]!.bytes.includes(canary)) return true;
      }
      return false;
    });

  /**
   * Row versions of the touched tables whose data holds `canary`, as pageinspect reads the pages:
   * live and dead ones, not the free space between them (which only `full` clears).
   */
  const tuplesHolding = (service: GovernedService, canary: string) =>
    inspecting(async (db) => {
      await db.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
      let count = 0;
      for (const table of touched(service)) {
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM generate_series(0, (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int - 1) AS page,
             heap_page_items(get_raw_page($1::text, page)) AS item
           WHERE item.t_data IS NOT NULL AND position(convert_to($2, 'UTF8') IN item.t_data) > 0`,
          [table, canary],
        );
        count += Number(rows[0]!.n);
      }
      return count;
    });

  /** A migrated members service on a PostgreSQL storage of its own, closed after `fn`. */
  async function onPostgres(fn: (service: GovernedService) => Promise<void>): Promise<void> {
    const storage = postgresStorage({ connectionString: url });
    try {
      const service = createGovernedService({ entity: Member, storage });
      await storage.migrate([service.model]);
      await fn(service);
    } finally {
      await storage.close();
    }
  }

  it('an erased value stays in dead row versions until a vacuum; { vacuum: "full" } rewrites the touched tables without it', async (test) => {
    const reason = await cannotInspect();
    if (reason) return test.skip(reason);
    await onPostgres(async (service) => {
      const kept = await writeAndErase(service, 'CANARY-PG-KEPT');
      expect(kept.vacuumed).toBeNull();
      // The problem: the old row versions are dead but still in the heap.
      expect(await onDisk(service, 'CANARY-PG-KEPT')).toBe(true);

      const erased = await writeAndErase(service, 'CANARY-PG-GONE', 'full');
      expect(erased.vacuumed).toBe('full');
      expect(await onDisk(service, 'CANARY-PG-GONE')).toBe(false);
      expect(await onDisk(service, 'CANARY-PG-KEPT')).toBe(false);
    });
  }, 60_000);

  it('{ vacuum: "plain" } runs VACUUM of the touched tables: no row version, live or dead, holds the value any more', async (test) => {
    const reason = await cannotInspect();
    if (reason) return test.skip(reason);
    await onPostgres(async (service) => {
      await writeAndErase(service, 'CANARY-PG-DEAD');
      // Without a vacuum the old versions are dead tuples that still hold the value.
      expect(await tuplesHolding(service, 'CANARY-PG-DEAD')).toBeGreaterThan(0);
      const erased = await writeAndErase(service, 'CANARY-PG-PLAIN', 'plain');
      expect(erased.vacuumed).toBe('plain');
      expect(await tuplesHolding(service, 'CANARY-PG-PLAIN')).toBe(0);
      expect(await tuplesHolding(service, 'CANARY-PG-DEAD')).toBe(0);
    });
  }, 60_000);
});

/** A migrated members service on memory storage. */
async function onMemory(): Promise<GovernedService> {
  const storage = memoryStorage();
  const service = createGovernedService({ entity: Member, storage });
  await storage.migrate([service.model]);
  return service;
}

it('asks nothing of memory storage, whose values end with the process', async () => {
  expect((await writeAndErase(await onMemory(), 'CANARY-MEMORY', 'full')).vacuumed).toBeNull();
});

it('refuses an unknown vacuum mode before erasing anything', async () => {
  await expect(writeAndErase(await onMemory(), 'CANARY-BAD', 'deep' as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
});
