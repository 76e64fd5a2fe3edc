/**
 * Feed cursors over HTTP on memory, a SQLite file and PostgreSQL: a tenant's cursors count its own
 * events only (another tenant's writes never move them), a cursor past 64 bits or of the former
 * global sequence is one 400 `VALIDATION_ERROR` naming `after` on every driver, and a database
 * migrated before per-tenant positions gets them numbered in commit order by the next migrate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createGovernedApi, createGovernedService, memoryStorage, type StorageDriver, type StoredEvent } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { expectError, ids, mint, SECRET, send, serve } from '../governed/support.ts';
import { driverSkip } from '../storage/drivers.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { ORDER_DOCUMENT } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-cursors-'));
const pgSkip = driverSkip('postgres');
const postgres = pgSkip ? { ok: false as const, skip: pgSkip } : await startTestPostgres();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (postgres.ok) await postgres.db.stop();
});

const base64url = (text: string) => Buffer.from(text).toString('base64url');

const drivers: Array<{ name: string; skip: string | undefined; create: () => StorageDriver }> = [
  { name: 'memory', skip: driverSkip('memory'), create: () => memoryStorage() },
  { name: 'sqlite', skip: driverSkip('sqlite'), create: () => sqliteStorage({ filename: join(dir, `${crypto.randomUUID()}.db`) }) },
  {
    name: 'postgres',
    skip: postgres.ok ? undefined : postgres.skip,
    create: () => postgresStorage({ connectionString: postgres.ok ? postgres.db.url : '' }),
  },
];

for (const driver of drivers) {
  describe.skipIf(Boolean(driver.skip))(`feed cursors over HTTP on ${driver.name}${driver.skip ? ` (skipped: ${driver.skip})` : ''}`, () => {
    it('numbers a tenant’s cursors by its own events: another tenant’s writes never move them', async () => {
      const storage = driver.create();
      const handler = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
      await handler.migrate();
      const server = await serve(handler);
      try {
        const [mine, busy, alone] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
        const token = (tenant: string) => mint({ sub: ids.admin, tenant, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] }, permissions: ['audit:read'] });
        const write = async (tenant: string, title: string) =>
          expect((await send(server.url, 'POST', `/v1/workspaces/${ids.ws}/orders`, { token: await token(tenant), body: { title, amount: 1 } })).status).toBe(
            201,
          );
        await write(mine, 'a1');
        for (let index = 0; index < 5; index += 1) await write(busy, `b${index}`);
        await write(mine, 'a2');
        await write(alone, 'c1');
        await write(alone, 'c2');
        const cursors = async (tenant: string) =>
          ((await send(server.url, 'GET', '/v1/events', { token: await token(tenant) })).body.data as StoredEvent[]).map((event) => event.cursor);
        const ours = await cursors(mine);
        expect(ours).toHaveLength(2);
        expect(ours).toEqual(await cursors(alone));
        // The page after our first event is our second, whatever the busy tenant wrote in between.
        const next = await send(server.url, 'GET', `/v1/events?after=${ours[0]}`, { token: await token(mine) });
        expect(next.body.data.map((event: StoredEvent) => event.cursor)).toEqual([ours[1]]);
      } finally {
        await server.close();
        await storage.close();
      }
    });

    it('answers a cursor past 64 bits, or of the former global sequence, with one 400 naming after', async () => {
      const storage = driver.create();
      const handler = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
      await handler.migrate();
      const token = await mint({ sub: ids.admin, roles: ['admin'], permissions: ['audit:read'] });
      try {
        for (const after of [base64url('t9223372036854775808'), base64url('t99999999999999999999'), base64url('e9223372036854775808'), base64url('e12')]) {
          const answer = await send(handler, 'GET', `/v1/events?after=${after}`, { token });
          expectError(answer, 400, 'VALIDATION_ERROR');
          expect(answer.body.details.fields.map((field: { path: string }) => field.path)).toEqual(['after']);
        }
        const largest = await send(handler, 'GET', `/v1/events?after=${base64url('t9223372036854775807')}`, { token });
        expect(largest.status).toBe(200);
        expect(largest.body.data).toEqual([]);
      } finally {
        await storage.close();
      }
    });
  });
}

/** Writes `count` events for each tenant, alternating, through `storage`. */
async function interleave(storage: StorageDriver, tenants: readonly string[], count: number): Promise<void> {
  const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
  await storage.migrate([service.model]);
  for (let index = 0; index < count; index += 1) {
    for (const tenantId of tenants) {
      const actor = { id: 'w', type: 'user' as const, tenantId, roles: ['admin'], workspaces: {}, permissions: [] };
      await service.create({ actor, scope: { workspaceId: ids.ws } }, { title: `${index}`, amount: index });
    }
  }
}

/** Each tenant's events through `storage`, as (title-free) positions decoded from their cursors. */
async function positions(storage: StorageDriver, tenantId: string): Promise<string[]> {
  const events = await storage.events.listEvents({ tenantId, limit: 100 });
  return events.map((event) => Buffer.from(event.cursor, 'base64url').toString());
}

describe('a database migrated before per-tenant positions', () => {
  const upgrade = (tenants: string[]) => async (reopen: () => StorageDriver, downgrade: () => Promise<void>) => {
    let storage = reopen();
    await interleave(storage, tenants, 3);
    await storage.close();
    await downgrade();
    storage = reopen();
    await interleave(storage, tenants, 1);
    for (const tenantId of tenants) expect(await positions(storage, tenantId)).toEqual(['t1', 't2', 't3', 't4']);
    await storage.close();
  };

  it.skipIf(Boolean(driverSkip('sqlite')))('SQLite: the next migrate numbers the outbox per tenant in commit order, and writes continue after it', async () => {
    const filename = join(dir, 'upgrade.db');
    await upgrade([crypto.randomUUID(), crypto.randomUUID()])(
      () => sqliteStorage({ filename }),
      async () => {
        const raw = new Database(filename);
        raw.exec(`DROP INDEX cellgate_events_tenant_position_key; ALTER TABLE cellgate_events DROP COLUMN tenant_seq;
          DROP TABLE cellgate_event_positions; DELETE FROM cellgate_migrations WHERE name = 'cellgate:event-positions'`);
        raw.close();
      },
    );
  });

  it.skipIf(!postgres.ok)(
    `PostgreSQL: the next migrate numbers the outbox per tenant in commit order${postgres.ok ? '' : ` (skipped: ${postgres.skip})`}`,
    async () => {
      const url = postgres.ok ? postgres.db.url : '';
      await upgrade([crypto.randomUUID(), crypto.randomUUID()])(
        () => postgresStorage({ connectionString: url }),
        async () => {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await client.query(`ALTER TABLE cellgate_events DROP COLUMN tenant_seq; DROP TABLE cellgate_event_positions;
          DELETE FROM cellgate_migrations WHERE name = 'cellgate:event-positions'`);
          await client.end();
        },
      );
    },
  );
});
