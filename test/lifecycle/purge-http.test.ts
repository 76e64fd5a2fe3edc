/**
 * Retention and purge seen over HTTP (a real node server on 127.0.0.1, a real SQLite file): the
 * policy given to `createGovernedApi` reaches `purgeHistory`; afterwards the audit routes answer
 * with the `audit.purged` and `entity.purged` records (no values), a purged record is a 404 even
 * for an admin asking for deleted records, the feed carries `entity.purged`, and an immutable
 * tenant or a workspace-only admin is refused with the envelope's codes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CellgateError, createGovernedApi, purgeHistory, purgeHistoryAsOperator, type Actor, type GovernedApi } from 'cellgate';
import { claimsToActor } from '../../src/governed/auth/claims.ts';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { cast, customer, demoEntity, expectError, ids, mint, paths, SECRET, send, serve } from '../governed/support.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-purge-http-'));
const storage = sqliteStorage({ filename: join(dir, 'app.db') });
const LOCKED = ids.otherTenant;
let api: GovernedApi;
let server: { url: string; close: () => Promise<void> };
let tokens: Awaited<ReturnType<typeof cast>>;

beforeAll(async () => {
  api = createGovernedApi({
    storage,
    auth: { secret: SECRET },
    resources: [demoEntity('customer')] as never[],
    audit: { retentionDays: (tenant) => (tenant === LOCKED ? undefined : 1), immutability: (tenant) => tenant === LOCKED },
    purgeDeletedAfterDays: 1,
  });
  await api.migrate();
  server = await serve(api);
  tokens = await cast();
});
afterAll(async () => {
  await server.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const admin: Actor = { id: ids.admin, type: 'user', tenantId: ids.tenant, roles: ['admin'], workspaces: {}, permissions: [] };
const DAY_MS = 86_400_000;

describe('purge seen over HTTP', () => {
  it('leaves readable audit routes and feed: audit.purged and entity.purged records without values; the purged record is gone', async () => {
    const created = await send(server.url, 'POST', paths.customers(), {
      token: tokens.admin,
      body: customer({ name: 'Purge Me', email: 'purge.me@example.com' }),
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect((await send(server.url, 'DELETE', `${paths.customers()}/${id}?expectedVersion=1`, { token: tokens.admin })).status).toBe(200);

    const report = await purgeHistory({ api, actor: admin, now: new Date(Date.now() + 2 * DAY_MS) });
    expect(report.tenants[0]).toMatchObject({ tenantId: ids.tenant, purged: { records: 1, versionStates: 2 } });
    expect(report.tenants[0]!.retention!.auditRecords).toBeGreaterThanOrEqual(2);

    const audit = await send(server.url, 'GET', '/v1/audit?limit=100', { token: tokens.admin });
    expect(audit.status).toBe(200);
    const types = (audit.body.data as Array<{ eventType: string }>).map((record) => record.eventType);
    expect(types).toContain('audit.purged');
    expect(audit.text).not.toMatch(/purge\.me@example\.com|Purge Me/);
    const gone = await send(server.url, 'GET', `${paths.customers()}/${id}?includeDeleted=true`, { token: tokens.admin });
    expectError(gone, 404, 'NOT_FOUND');
    const feed = await send(server.url, 'GET', '/v1/events?limit=500', { token: tokens.admin });
    expect(feed.status).toBe(200);
    // The job's `now` is two days ahead, so every event of the record, the purge's own
    // entity.purged included, is older than the cut-off: retention trims the outbox too, fanned
    // out or not (no webhook dispatcher runs here). The conformance suite checks entity.purged's
    // value-free event where it is newer than the cut-off.
    const left = (feed.body.data as Array<{ resourceId: string }>).filter((event) => event.resourceId === id);
    expect(left).toEqual([]);
    expect(feed.text).not.toMatch(/purge\.me@example\.com|Purge Me/);
  });

  it('refuses an immutable tenant (409 AUDIT_IMMUTABLE) and a workspace-only admin (403), and keeps their history', async () => {
    const created = await send(server.url, 'POST', paths.customers(), { token: tokens.otherTenant, body: customer() });
    expect(created.status).toBe(201);
    const locked: Actor = { ...admin, tenantId: LOCKED };
    const error = await purgeHistory({ api, actor: locked, now: new Date(Date.now() + 2 * DAY_MS) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CellgateError);
    expect((error as CellgateError).toBody()).toMatchObject({ error: 'AUDIT_IMMUTABLE' });
    expect((error as CellgateError).status).toBe(409);
    const history = await send(server.url, 'GET', '/v1/audit', { token: tokens.otherTenant });
    expect(history.body.data).toHaveLength(1);

    const workspaceAdmin: Actor = { ...admin, roles: [], workspaces: { [ids.ws]: ['admin'] } };
    await expect(purgeHistory({ api, actor: workspaceAdmin })).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });

  it('an actor resolved from a token carrying an "operator" claim is an actor: admin checked, its own tenant only', async () => {
    // A careless resolveActor that keeps every claim on the actor, as hosts do to carry extras.
    const resolved: Actor[] = [];
    const careless = createGovernedApi({
      storage,
      auth: {
        secret: SECRET,
        resolveActor: (claims) => {
          const actor = { ...claims, ...(claimsToActor(claims) as Actor) };
          resolved.push(actor);
          return actor;
        },
      },
      resources: [demoEntity('customer')] as never[],
      audit: { retentionDays: 1 },
      purgeDeletedAfterDays: 1,
    });
    const host = await serve(careless);
    try {
      // The victim: a soft-deleted record of another tenant, past its purge period in two days.
      const victim = await send(server.url, 'POST', paths.customers(), { token: tokens.admin, body: customer({ name: 'Keep Me' }) });
      const victimId = victim.body.data.id as string;
      expect((await send(server.url, 'DELETE', `${paths.customers()}/${victimId}?expectedVersion=1`, { token: tokens.admin })).status).toBe(200);

      const ownTenant = crypto.randomUUID();
      const claimed = async (roles: string[]) => {
        const token = await mint({ tenant: ownTenant, sub: crypto.randomUUID(), roles, extra: { operator: 'x' } });
        expect((await send(host.url, 'GET', paths.customers(), { token })).status).toBe(200);
        const actor = resolved.at(-1)!;
        expect(actor).toMatchObject({ operator: 'x', tenantId: ownTenant });
        return actor;
      };
      const later = new Date(Date.now() + 2 * DAY_MS);
      const admin = await claimed(['admin']);
      // Before: the claim made it an operator, which purged the named tenant, or walked every tenant.
      await expect(purgeHistory({ api: careless, actor: admin, tenantId: ids.tenant, now: later })).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403 });
      const own = await purgeHistory({ api: careless, actor: admin, now: later });
      expect(own.tenants.map((tenant) => tenant.tenantId)).toEqual([ownTenant]);
      const viewer = await claimed(['viewer']);
      await expect(purgeHistory({ api: careless, actor: viewer, now: later })).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403 });
      // The victim's record is still there to be purged, by its own tenant's admin or an operator.
      const deleted = await send(server.url, 'GET', `${paths.customers()}/${victimId}?includeDeleted=true`, { token: tokens.admin });
      expect(deleted.status).toBe(200);
    } finally {
      await host.close();
    }
  });

  it('the operator run is its own function: it names any tenant, and refuses a nameless operator', async () => {
    const report = await purgeHistoryAsOperator({ api, operator: 'nightly', tenantId: ids.tenant, dryRun: true });
    expect(report.tenants.map((tenant) => tenant.tenantId)).toEqual([ids.tenant]);
    await expect(purgeHistoryAsOperator({ api, operator: ' ' })).rejects.toThrow(/operator/);
    // An untyped caller passing the old operator object as the actor gets a clear configuration error.
    await expect(purgeHistory({ api, actor: { operator: 'x' } as never })).rejects.toThrow(/purgeHistoryAsOperator/);
  });
});
