/**
 * Issue #26 item 1: every history surface (audit page, audit item, NDJSON export, change feed)
 * applies the entity's own `view` roles and plan before `audit:read`, over HTTP on real servers
 * (127.0.0.1) for memory, a SQLite file and PostgreSQL. Records a caller may not view are absent
 * from pages (which stay full: `limit=2` pages skip over them) and their item is 404; an actor who
 * may view everything still reads everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGovernedApi, defineEntity, memoryStorage, type AuditRecord, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { customer, demoEntity, expectError, ids, invoice, mint, paths, SECRET, send, serve, type Answer } from '../governed/support.ts';
import { driverSkip } from '../storage/drivers.ts';
import { startTestPostgres } from '../support/postgres.ts';

/** An app's entity that only admins may view: the issue's `salary` / `bio` repro. */
const EMPLOYEE = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Employee',
  key: 'hr.employee',
  version: '1.0.0',
  description: 'An employee, visible to admins only',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { name: { type: 'string' }, salary: { type: 'number' }, bio: { type: 'string' } },
});

/** A resource every role may view, but only on the `pro` plan. */
const REPORT = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Report',
  key: 'bi.report',
  version: '1.0.0',
  description: 'A report of the pro plan',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer', 'editor', 'admin', 'guest'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: { title: { type: 'string' } },
});

const RANGE = 'from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z';
const NDJSON = { accept: 'application/x-ndjson' };
const SALARY = 987654321;
const BIO = 'bio-private-text';
const CUSTOMER_NAME = 'Hidden Customer Name';
const HIDDEN_AMOUNT = 7654.32;

const lines = (text: string): AuditRecord[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);

/** Every record of `/v1/audit` (with `query`) page by page, and the size of each page. */
async function auditPages(url: string, token: string, query = ''): Promise<{ records: AuditRecord[]; sizes: number[] }> {
  const records: AuditRecord[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const page: Answer = await send(url, 'GET', `/v1/audit?limit=2${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { token });
    expect(page.status, page.text).toBe(200);
    records.push(...page.body.data);
    sizes.push(page.body.data.length);
    cursor = page.body.meta.nextCursor;
  } while (cursor !== null && sizes.length < 50);
  return { records, sizes };
}

/** Every event of the feed, page by page (`limit=2`), and the size of each non-empty page. */
async function feedPages(url: string, token: string): Promise<{ events: Array<{ resourceType: string; workspaceId: string | null }>; sizes: number[] }> {
  const events: Array<{ resourceType: string; workspaceId: string | null }> = [];
  const sizes: number[] = [];
  let after: string | null = null;
  for (let round = 0; round < 50; round += 1) {
    const page: Answer = await send(url, 'GET', `/v1/events?limit=2${after === null ? '' : `&after=${encodeURIComponent(after)}`}`, { token });
    expect(page.status, page.text).toBe(200);
    if (page.body.data.length === 0) break;
    events.push(...page.body.data);
    sizes.push(page.body.data.length);
    after = page.body.meta.nextCursor;
  }
  return { events, sizes };
}

/** The HTTP suite on one driver. */
function suite(name: string, skip: string | undefined, open: () => Promise<{ storage: StorageDriver; close: () => Promise<void> }>): void {
  describe.skipIf(skip !== undefined)(`history reach over HTTP: ${name}${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
    let server: { url: string; close: () => Promise<void> };
    let closeStorage: () => Promise<void> = async () => {};
    const tokens: Record<'admin' | 'guest' | 'viewer' | 'proViewer' | 'viewerNoAudit', string> = {} as never;
    const audit: Record<string, AuditRecord> = {};

    beforeAll(async () => {
      const opened = await open();
      closeStorage = opened.close;
      const api = createGovernedApi({
        storage: opened.storage,
        auth: { secret: SECRET },
        resources: [
          demoEntity('customer') as never,
          demoEntity('invoice') as never,
          demoEntity('activity-event') as never,
          EMPLOYEE,
          { entity: REPORT, plans: ['pro'] },
        ],
      });
      await api.migrate();
      server = await serve(api);
      const everywhere = { [ids.ws]: ['admin'], [ids.otherWs]: ['admin'] };
      tokens.admin = await mint({ roles: ['admin'], workspaces: everywhere, permissions: ['audit:read'], plan: 'pro' });
      tokens.guest = await mint({ sub: ids.viewer, workspaces: { [ids.ws]: ['guest'] }, permissions: ['audit:read'] });
      tokens.viewer = await mint({ sub: ids.viewer, workspaces: { [ids.ws]: ['viewer'] }, permissions: ['audit:read'] });
      tokens.proViewer = await mint({ sub: ids.viewer, workspaces: { [ids.ws]: ['viewer'] }, permissions: ['audit:read'], plan: 'pro' });
      tokens.viewerNoAudit = await mint({ sub: ids.viewer, workspaces: { [ids.ws]: ['viewer'] } });
      // Visible and invisible records interleaved, so a page of visible ones must skip over others.
      const token = tokens.admin;
      const writes: Array<[string, string, unknown]> = [
        ['customer', paths.customers(), customer({ name: CUSTOMER_NAME })],
        ['employee', `/v1/workspaces/${ids.ws}/employees`, { name: 'Ada', salary: SALARY, bio: BIO }],
        ['customer', paths.customers(), customer({ name: `${CUSTOMER_NAME} 2` })],
        ['report', `/v1/workspaces/${ids.ws}/reports`, { title: 'Q1' }],
        ['employee', `/v1/workspaces/${ids.ws}/employees`, { name: 'Bob', salary: SALARY, bio: BIO }],
        ['invoice', paths.invoices(), invoice({ customerName: CUSTOMER_NAME, amount: HIDDEN_AMOUNT })],
        ['activity', paths.events(), { kind: 'login' }],
        ['customer', paths.customers(), customer({ name: `${CUSTOMER_NAME} 3` })],
        ['otherCustomer', paths.customers(ids.otherWs), customer({ name: `${CUSTOMER_NAME} elsewhere` })],
      ];
      for (const [, path, body] of writes) {
        const created = await send(server.url, 'POST', path, { token, body });
        expect(created.status, created.text).toBe(201);
      }
      const all = await auditPages(server.url, token);
      for (const record of all.records) audit[`${record.resourceType}:${record.workspaceId}:${record.resourceId}`] = record;
    });
    afterAll(async () => {
      await server?.close();
      await closeStorage();
    });

    const byType = (type: string) => Object.values(audit).filter((record) => record.resourceType === type);

    it('an allowed actor reads every record on every surface', async () => {
      expect(Object.keys(audit)).toHaveLength(9);
      const exported = await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: tokens.admin, headers: NDJSON });
      expect(lines(exported.text)).toHaveLength(9);
      // Tier-3 activity events emit no event: the other eight do.
      expect((await feedPages(server.url, tokens.admin)).events).toHaveLength(8);
      expect((await send(server.url, 'GET', `/v1/audit/${byType('hr.Employee@v1')[0]!.id}`, { token: tokens.admin })).status).toBe(200);
    });

    it("a workspace role outside the entities' view lists reads nothing (the reference host's guest)", async () => {
      const list = await auditPages(server.url, tokens.guest);
      expect(list.records).toEqual([]);
      const exported = await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: tokens.guest, headers: NDJSON });
      expect({ status: exported.status, text: exported.text }).toEqual({ status: 200, text: '' });
      expect((await feedPages(server.url, tokens.guest)).events).toEqual([]);
      for (const record of [...byType('crm.Customer@v1'), ...byType('crm.Invoice@v1')]) {
        expectError(await send(server.url, 'GET', `/v1/audit/${record.id}`, { token: tokens.guest }), 404, 'NOT_FOUND');
      }
      const feed = await send(server.url, 'GET', '/v1/events?limit=500', { token: tokens.guest });
      expect(feed.text).not.toContain(CUSTOMER_NAME);
      expect(feed.text).not.toContain(String(HIDDEN_AMOUNT));
    });

    it('a viewer reads customers and invoices of its workspace, never the admin-only employees, the plan-restricted reports or tenant-level records', async () => {
      const visible = new Set(
        [...byType('crm.Customer@v1'), ...byType('crm.Invoice@v1')].filter((record) => record.workspaceId === ids.ws).map((record) => record.id),
      );
      expect(visible.size).toBe(4);
      // Pages stay full: 2 + 2, the invisible records between them skipped by storage, and no third page.
      const list = await auditPages(server.url, tokens.viewer);
      expect(list.sizes).toEqual([2, 2]);
      expect(new Set(list.records.map((record) => record.id))).toEqual(visible);
      const exported = await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token: tokens.viewer, headers: NDJSON });
      expect(new Set(lines(exported.text).map((record) => record.id))).toEqual(visible);
      const feed = await feedPages(server.url, tokens.viewer);
      expect(feed.sizes).toEqual([2, 2]);
      expect(feed.events.map((event) => event.resourceType).sort()).toEqual(['crm.Customer@v1', 'crm.Customer@v1', 'crm.Customer@v1', 'crm.Invoice@v1']);
      for (const text of [JSON.stringify(list.records), exported.text, JSON.stringify(feed.events)]) {
        expect(text).not.toContain(String(SALARY));
        expect(text).not.toContain(BIO);
      }
      for (const record of [...byType('hr.Employee@v1'), ...byType('bi.Report@v1'), ...byType('ops.ActivityEvent@v1')]) {
        expectError(await send(server.url, 'GET', `/v1/audit/${record.id}`, { token: tokens.viewer }), 404, 'NOT_FOUND');
      }
      expect((await send(server.url, 'GET', `/v1/audit/${[...visible][0]}`, { token: tokens.viewer })).status).toBe(200);
    });

    it('a resource type out of reach answers an empty page, like one with no records; a workspace without a role answers 403', async () => {
      for (const type of ['hr.Employee@v1', 'bi.Report@v1', 'ops.ActivityEvent@v1', 'other.Thing@v1']) {
        const page = await send(server.url, 'GET', `/v1/audit?resourceType=${type}`, { token: tokens.viewer });
        expect({ status: page.status, data: page.body.data }).toEqual({ status: 200, data: [] });
        const feed = await send(server.url, 'GET', `/v1/events?resourceType=${type}`, { token: tokens.viewer });
        expect({ status: feed.status, data: feed.body.data }).toEqual({ status: 200, data: [] });
        const exported = await send(server.url, 'GET', `/v1/audit?${RANGE}&resourceType=${type}`, { token: tokens.viewer, headers: NDJSON });
        expect({ status: exported.status, text: exported.text }).toEqual({ status: 200, text: '' });
      }
      expectError(await send(server.url, 'GET', `/v1/audit?workspaceId=${ids.otherWs}`, { token: tokens.viewer }), 403, 'FORBIDDEN');
      expectError(await send(server.url, 'GET', `/v1/events?workspaceId=${ids.otherWs}`, { token: tokens.viewer }), 403, 'FORBIDDEN');
      expectError(await send(server.url, 'GET', '/v1/audit', { token: tokens.viewerNoAudit }), 403, 'FORBIDDEN');
      expectError(await send(server.url, 'GET', '/v1/events', { token: tokens.viewerNoAudit }), 403, 'FORBIDDEN');
    });

    it('the plan lets a viewer read the plan-restricted resource on every surface', async () => {
      const reports = byType('bi.Report@v1');
      expect(reports).toHaveLength(1);
      const list = await auditPages(server.url, tokens.proViewer, '&resourceType=bi.Report@v1');
      expect(list.records.map((record) => record.id)).toEqual([reports[0]!.id]);
      expect((await send(server.url, 'GET', `/v1/audit/${reports[0]!.id}`, { token: tokens.proViewer })).status).toBe(200);
      const exported = await send(server.url, 'GET', `/v1/audit?${RANGE}&resourceType=bi.Report@v1`, { token: tokens.proViewer, headers: NDJSON });
      expect(lines(exported.text).map((record) => record.id)).toEqual([reports[0]!.id]);
      const feed = await send(server.url, 'GET', '/v1/events?resourceType=bi.Report@v1', { token: tokens.proViewer });
      expect(feed.body.data).toHaveLength(1);
    });
  });
}

suite('memory', driverSkip('memory'), async () => ({ storage: memoryStorage(), close: async () => {} }));

suite('sqlite', driverSkip('sqlite'), async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-reach-'));
  const storage = sqliteStorage({ filename: join(dir, 'reach.db') });
  return {
    storage,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const postgresFiltered = driverSkip('postgres');
const postgres = postgresFiltered ? { ok: false as const, skip: postgresFiltered } : await startTestPostgres();
suite('postgres', postgres.ok ? undefined : postgres.skip, async () => {
  if (!postgres.ok) throw new Error('skipped');
  const storage = postgresStorage({ connectionString: postgres.db.url, max: 4 });
  return {
    storage,
    close: async () => {
      await storage.close();
      await postgres.db.stop();
    },
  };
});
