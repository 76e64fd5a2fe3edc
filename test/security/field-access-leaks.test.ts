/**
 * Issue #30, the leak matrix of field-level access (docs/field-access.md): for each role × each
 * surface × canary values placed in hidden fields (and in sensitive fields), the serialised answer
 * holds no canary, no audit hash of it and no audit length of it. Over HTTP on a real server
 * (127.0.0.1) on a SQLite file and on PostgreSQL, and through `onEvent` and webhooks with a real
 * receiver on 127.0.0.1. The `hr` role may view every field: its answers hold the canaries, so the
 * searches below are proven able to find them.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGovernedApi, createWebhookDispatcher, defineEntity, generateWebhookSecret, type DomainEvent, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { expectError, ids, mint, send, serve, type Answer } from '../governed/support.ts';
import { startReceiver, type Receiver } from '../events/support.ts';
import { driverSkip } from '../storage/drivers.ts';
import { startTestPostgres } from '../support/postgres.ts';

const HASH_SECRET = 'field-access-leak-matrix-hash-secret';

/** Salary, notes and nickname are for hr; ssn is hr's too and sensitive; the entity itself is for everyone. */
const PERSON = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Person',
  key: 'hr.person',
  version: '1.0.0',
  description: 'A person with fields only hr may see',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions: { view: ['viewer', 'editor', 'hr', 'admin'], edit: ['editor', 'hr', 'admin'], admin: ['admin'] },
  fields: {
    name: { type: 'string' },
    salary: { type: 'number', optional: true, permissions: { view: ['hr', 'payroll'], edit: ['hr'] } },
    notes: { type: 'string', optional: true, redact: 'hash', permissions: { view: ['hr'], edit: ['hr'] } },
    nickname: { type: 'string', optional: true, redact: 'length', permissions: { view: ['hr'], edit: ['hr'] } },
    ssn: { type: 'string', optional: true, sensitive: true, permissions: { view: ['hr'], edit: ['hr'] } },
    motto: { type: 'string', optional: true, sensitive: true },
  },
  data: {
    filtering: { allowedFields: ['name', 'salary'], operators: { salary: ['equals', 'gt'] } },
    searching: { fields: ['name', 'notes'] },
    sorting: { allowedFields: ['name', 'salary'] },
  },
});

const CANARY = {
  salary: 73519.27,
  notes: 'canary-notes-7f3a9c',
  nickname: 'canary-nick-0b1e77-x',
  ssn: 'canary-ssn-55d2',
  /** Sensitive only: visible on GET to everyone, never in any history surface. */
  motto: 'canary-motto-c4e1',
} as const;
const HIDDEN = ['salary', 'notes', 'nickname', 'ssn'] as const;

/** The audit's hash form of a text (docs/redaction.md): HMAC under the tenant key HMAC(secret, tenant). */
function auditHash(text: string): string {
  const tenantKey = createHmac('sha256', HASH_SECRET).update(`cellgate-audit-tenant:${ids.tenant}`).digest();
  return `hmac-sha256:${createHmac('sha256', tenantKey).update(text).digest('hex')}`;
}

/** Every way a hidden canary could show: the value, its audit hash and its audit length forms. */
const HIDDEN_FORMS: Array<[string, string]> = [
  ['salary', String(CANARY.salary)],
  ['notes', CANARY.notes],
  ['notes hash', auditHash(CANARY.notes)],
  ['nickname', CANARY.nickname],
  ['nickname length', `"valueLength":${CANARY.nickname.length}`],
  ['nickname length', `"length":${CANARY.nickname.length}`],
  ['ssn', CANARY.ssn],
  // A hidden field's path leaves with its value.
  ['salary path', '/salary'],
  ['notes path', '/notes'],
  ['nickname path', '/nickname'],
  ['ssn path', '/ssn'],
];

/** Asserts a serialised answer carries none of the hidden forms. */
function expectNoLeak(surface: string, text: string): void {
  for (const [what, form] of HIDDEN_FORMS) expect(text.includes(form), `${surface} leaks ${what} (${form})`).toBe(false);
  for (const name of HIDDEN) expect(text.includes(`"${name}":`), `${surface} carries the member ${name}`).toBe(false);
}

/** Surfaces that read the audit's stored content (records and time-travel views show a sensitive value to its viewers). */
const HISTORY_SURFACES = new Set(['versions', 'audit page', 'audit item', 'export', 'feed', 'audit by field']);

type Role = 'viewer' | 'editor' | 'admin' | 'hr';
const ROLES: readonly Role[] = ['viewer', 'editor', 'admin', 'hr'];
const collection = `/v1/workspaces/${ids.ws}/people`;
const RANGE = 'from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z';

function suite(name: string, skip: string | undefined, open: () => Promise<{ storage: StorageDriver; close: () => Promise<void> }>): void {
  describe.skipIf(skip !== undefined)(`field access leak matrix: ${name}${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
    let server: { url: string; close: () => Promise<void> };
    let receiver: Receiver;
    let closeStorage: () => Promise<void> = async () => {};
    const events: DomainEvent[] = [];
    const tokens = {} as Record<Role, string>;
    let api: ReturnType<typeof createGovernedApi>;
    let id = '';
    let createdAt = '';
    let dispatcher: ReturnType<typeof createWebhookDispatcher>;
    const secret = generateWebhookSecret();

    beforeAll(async () => {
      const opened = await open();
      closeStorage = opened.close;
      api = createGovernedApi({
        storage: opened.storage,
        auth: { secret: 'field-access-leak-matrix-secret-0123456789' },
        resources: { people: PERSON },
        redaction: { hashSecret: HASH_SECRET },
        audit: { storeSnapshots: true },
        onEvent: (event) => void events.push(event),
      });
      await api.migrate();
      server = await serve(api);
      receiver = await startReceiver(secret);
      for (const role of ROLES) {
        tokens[role] = await mint({
          sub: ids[role === 'hr' || role === 'admin' ? 'admin' : role],
          secret: 'field-access-leak-matrix-secret-0123456789',
          workspaces: { [ids.ws]: [role] },
          permissions: ['audit:read', 'audit:restore', 'hr.people.read'],
        });
      }
      dispatcher = createWebhookDispatcher({
        storage: opened.storage,
        access: api.access,
        allowTargets: { loopback: true },
        subscriptions: ROLES.map((role) => ({ id: role, url: `${receiver.url}/${role}`, secret, principal: { workspaces: { [ids.ws]: [role] } } })),
      });
      const created = await send(server.url, 'POST', collection, { token: tokens.hr, body: { name: 'Ada', ...CANARY } });
      expect(created.status, created.text).toBe(201);
      id = created.body.data.id;
      createdAt = created.body.data.createdAt;
      // Version 2 changes a hidden field and a visible one; version 3 only a visible one.
      const updated = await send(server.url, 'PATCH', `${collection}/${id}`, {
        token: tokens.hr,
        body: { expectedVersion: 1, name: 'Ada L', salary: CANARY.salary + 1, notes: `${CANARY.notes}-2`, nickname: `${CANARY.nickname}-2` },
      });
      expect(updated.status, updated.text).toBe(200);
      const renamed = await send(server.url, 'PATCH', `${collection}/${id}`, { token: tokens.editor, body: { expectedVersion: 2, name: 'Ada Lovelace' } });
      expect(renamed.status, renamed.text).toBe(200);
      for (let step = 0; step < 5 && (await dispatcher.runOnce()).attempted > 0; step += 1);
    });
    afterAll(async () => {
      await dispatcher?.stop();
      await receiver?.close();
      await server?.close();
      await closeStorage();
    });

    /** Every read surface of one role, serialised as the client gets it. */
    async function surfaces(role: Role): Promise<Array<[string, Answer]>> {
      const token = tokens[role];
      const audit = await send(server.url, 'GET', `/v1/audit?resourceType=hr.Person@v1&limit=100`, { token });
      const auditId = (audit.body?.data ?? [])[0]?.id as string;
      return [
        ['GET', await send(server.url, 'GET', `${collection}/${id}`, { token })],
        ['list', await send(server.url, 'GET', `${collection}?q=ada`, { token })],
        ['versions', await send(server.url, 'GET', `${collection}/${id}/versions`, { token })],
        ['audit page', audit],
        ['audit item', await send(server.url, 'GET', `/v1/audit/${auditId}`, { token })],
        ['export', await send(server.url, 'GET', `/v1/audit?${RANGE}`, { token, headers: { accept: 'application/x-ndjson' } })],
        ['feed', await send(server.url, 'GET', '/v1/events?limit=100', { token })],
        ['openapi', await send(server.url, 'GET', '/v1/openapi.json', { token })],
        // Time travel (issue #30's other half): the same per-reader view.
        ['as of an instant', await send(server.url, 'GET', `${collection}/${id}?asOf=${encodeURIComponent(createdAt)}`, { token })],
        ['version 1', await send(server.url, 'GET', `${collection}/${id}/versions/1`, { token })],
        ['changes 1 → 3', await send(server.url, 'GET', `${collection}/${id}/changes?from=1&to=3`, { token })],
        ['changes 3 → 1', await send(server.url, 'GET', `${collection}/${id}/changes?from=3&to=1`, { token })],
        ['list as of', await send(server.url, 'GET', `${collection}?asOf=${encodeURIComponent(new Date().toISOString())}`, { token })],
        ['audit by field', await send(server.url, 'GET', '/v1/audit?resourceType=hr.Person@v1&field=/salary', { token })],
      ];
    }

    for (const role of ['viewer', 'editor', 'admin'] as const) {
      it(`${role}: no read surface carries a hidden canary, its hash or its length; meta.hiddenFields names the fields`, async () => {
        for (const [surface, answer] of await surfaces(role)) {
          expect(answer.status, `${surface}: ${answer.text}`).toBe(200);
          if (surface === 'openapi') {
            const schema = answer.body.components.schemas.Person.properties as Record<string, unknown>;
            expect(Object.keys(schema)).not.toContain('salary');
            expect(Object.keys(schema)).toContain('name');
            continue;
          }
          expectNoLeak(`${role} ${surface}`, answer.text);
          // The sensitive value never reaches a history surface (audit redaction, the first layer).
          if (HISTORY_SURFACES.has(surface)) expect(answer.text, `${surface}`).not.toContain(CANARY.motto);
        }
        const get = await send(server.url, 'GET', `${collection}/${id}`, { token: tokens[role] });
        expect(get.body.meta.hiddenFields).toEqual(['salary', 'notes', 'nickname', 'ssn']);
        expect(get.body.data.motto).toBe(CANARY.motto);
        const list = await send(server.url, 'GET', collection, { token: tokens[role] });
        expect(list.body.meta.hiddenFields).toEqual(['salary', 'notes', 'nickname', 'ssn']);
        const version = await send(server.url, 'GET', `${collection}/${id}/versions/1`, { token: tokens[role] });
        expect(version.body.meta.hiddenFields).toEqual(['salary', 'notes', 'nickname', 'ssn']);
        // Who changed the salary, and when: nothing, as for a field that does not exist.
        const byField = await send(server.url, 'GET', '/v1/audit?resourceType=hr.Person@v1&field=/salary&limit=1', { token: tokens[role] });
        // No record and no cursor: the same answer as for a field no record ever changed.
        expect(byField.body).toEqual({ data: [], meta: { limit: 1, nextCursor: null } });
        const asOfFilter = await send(server.url, 'GET', `${collection}?asOf=${encodeURIComponent(new Date().toISOString())}&salary=1`, {
          token: tokens[role],
        });
        expectError(asOfFilter, 400, 'VALIDATION_ERROR');
      });
    }

    it('hr sees every canary on GET and its hash form in the audit: the searches can find them', async () => {
      const all = await surfaces('hr');
      const text = (surface: string) => all.find(([name]) => name === surface)![1].text;
      expect(text('GET')).toContain(String(CANARY.salary + 1));
      expect(text('GET')).toContain(CANARY.ssn);
      expect(text('audit page')).toContain(auditHash(CANARY.notes));
      expect(text('audit page')).toContain(`"valueLength":${CANARY.nickname.length}`);
      expect(text('versions')).toContain(`"length":${CANARY.nickname.length}`);
      expect(text('export')).toContain('/salary');
      expect(JSON.parse(text('GET')).meta.hiddenFields).toBeUndefined();
      expect(text('version 1')).toContain(CANARY.ssn);
      expect(text('changes 1 → 3')).toContain('/salary');
      expect(JSON.parse(text('audit by field')).data.length).toBeGreaterThanOrEqual(2);
      const paged = await send(server.url, 'GET', '/v1/audit?resourceType=hr.Person@v1&field=/salary&limit=1', { token: tokens.hr });
      expect(paged.body.meta.nextCursor).not.toBeNull();
      // hr in another workspace only: the field stays hidden where the records are.
      const elsewhere = await mint({
        sub: ids.viewer,
        secret: 'field-access-leak-matrix-secret-0123456789',
        workspaces: { [ids.ws]: ['viewer'], [ids.otherWs]: ['hr'] },
        permissions: ['audit:read'],
      });
      const other = await send(server.url, 'GET', '/v1/audit?resourceType=hr.Person@v1&field=/salary&limit=1', { token: elsewhere });
      expect(other.body).toEqual({ data: [], meta: { limit: 1, nextCursor: null } });
    });

    it('writes: a field the caller may not edit is 403 with its path, before its value is read, and never echoed', async () => {
      for (const role of ['editor', 'admin'] as const) {
        const merge = await send(server.url, 'PATCH', `${collection}/${id}`, {
          token: tokens[role],
          body: { expectedVersion: 3, salary: 'canary-typed-wrong' },
        });
        expectError(merge, 403, 'FORBIDDEN');
        expect(merge.body.details.fields).toEqual([{ path: 'salary', message: expect.any(String) }]);
        expect(merge.text).not.toContain('canary-typed-wrong');
        const test = await send(server.url, 'PATCH', `${collection}/${id}`, {
          token: tokens[role],
          body: { expectedVersion: 3, patch: [{ op: 'test', path: '/notes', value: CANARY.notes }] },
        });
        expectError(test, 403, 'FORBIDDEN');
        const create = await send(server.url, 'POST', collection, { token: tokens[role], body: { name: 'Eve', ssn: 'x' } });
        expectError(create, 403, 'FORBIDDEN');
        expect(create.body.details.fields).toEqual([{ path: 'ssn', message: expect.any(String) }]);
      }
      // A keyed create replayed for the same actor, whose roles changed: refused, never replayed.
      const key = { 'idempotency-key': `replay-${name}` };
      const first = await send(server.url, 'POST', collection, { token: tokens.hr, headers: key, body: { name: 'Kay', salary: CANARY.salary } });
      expect(first.status, first.text).toBe(201);
      const replay = await send(server.url, 'POST', collection, { token: tokens.admin, headers: key, body: { name: 'Kay', salary: CANARY.salary } });
      expectError(replay, 403, 'FORBIDDEN');
      expectNoLeak('replay', replay.text);
      const plain = { 'idempotency-key': `replay-plain-${name}` };
      expect((await send(server.url, 'POST', collection, { token: tokens.hr, headers: plain, body: { name: 'Lee' } })).status).toBe(201);
      const again = await send(server.url, 'POST', collection, { token: tokens.admin, headers: plain, body: { name: 'Lee' } });
      expect(again.status, again.text).toBe(201);
      expect(again.body.meta.hiddenFields).toEqual(['salary', 'notes', 'nickname', 'ssn']);
      // An editor's write answers the record without the hidden fields.
      const edited = await send(server.url, 'PATCH', `${collection}/${id}`, { token: tokens.editor, body: { expectedVersion: 3, motto: 'new motto' } });
      expect(edited.status, edited.text).toBe(200);
      expectNoLeak('editor PATCH answer', edited.text);
    });

    it('rollback that would change a field the caller may not edit is 403; one that leaves them alone passes', async () => {
      const current = (await send(server.url, 'GET', `${collection}/${id}`, { token: tokens.hr })).body.meta.version as number;
      const across = await send(server.url, 'POST', `${collection}/${id}/rollback`, { token: tokens.admin, body: { targetVersion: 1 } });
      expectError(across, 403, 'FORBIDDEN');
      expect(across.body.details.fields.map((field: { path: string }) => field.path)).toEqual(['salary', 'notes', 'nickname']);
      expectNoLeak('rollback refusal', across.text);
      const back = await send(server.url, 'POST', `${collection}/${id}/rollback`, { token: tokens.admin, body: { targetVersion: current - 1 } });
      expect(back.status, back.text).toBe(200);
      expectNoLeak('rollback answer', back.text);
    });

    it('filters, sorts and search on a hidden field answer 400 as if it did not exist, whether or not a record matches', async () => {
      for (const role of ['viewer', 'editor', 'admin'] as const) {
        const matching = await send(server.url, 'GET', `${collection}?salary=${CANARY.salary + 1}`, { token: tokens[role] });
        const missing = await send(server.url, 'GET', `${collection}?salary=1`, { token: tokens[role] });
        expectError(matching, 400, 'VALIDATION_ERROR');
        expect({ status: missing.status, body: missing.body }).toEqual({ status: matching.status, body: matching.body });
        expect(matching.text).not.toContain('salary:');
        const above = await send(server.url, 'GET', `${collection}?salary[gt]=0`, { token: tokens[role] });
        expectError(above, 400, 'VALIDATION_ERROR');
        const sorted = await send(server.url, 'GET', `${collection}?sortBy=salary`, { token: tokens[role] });
        expectError(sorted, 400, 'VALIDATION_ERROR');
        expect(sorted.body.details.fields[0].message).not.toContain('salary');
        // q searches only the fields the reader may view: the hidden notes match nothing.
        const search = await send(server.url, 'GET', `${collection}?q=${CANARY.notes}`, { token: tokens[role] });
        expect({ status: search.status, total: search.body.meta.total }).toEqual({ status: 200, total: 0 });
      }
      const hr = await send(server.url, 'GET', `${collection}?q=${CANARY.notes}`, { token: tokens.hr });
      expect(hr.body.meta.total).toBe(1);
      expect((await send(server.url, 'GET', `${collection}?salary[gt]=0&sortBy=salary`, { token: tokens.hr })).status).toBe(200);
    });

    it('webhooks: each principal receives only what its roles may view (hr receives the canaries)', async () => {
      for (const role of ROLES) {
        const got = receiver.received.filter((delivery) => delivery.path === `/${role}`);
        expect(got.length, role).toBeGreaterThanOrEqual(3);
        expect(got.every((delivery) => delivery.verified)).toBe(true);
        const text = JSON.stringify(got.map((delivery) => delivery.body));
        if (role === 'hr') expect(text).toContain(auditHash(CANARY.notes));
        else expectNoLeak(`webhook ${role}`, text);
      }
    });

    it('onEvent receives the audit-redacted event; api.access.eventFor gives each principal its view', async () => {
      expect(events.length).toBeGreaterThanOrEqual(3);
      const whole = JSON.stringify(events);
      // The first layer holds: sensitive values never leave the audit, in any form.
      expect(whole).not.toContain(CANARY.ssn);
      expect(whole).not.toContain(CANARY.motto);
      expect(whole).toContain(auditHash(CANARY.notes));
      for (const role of ['viewer', 'editor', 'admin'] as const) {
        const seen = events.map((event) => api.access.eventFor({ workspaces: { [ids.ws]: [role] } }, event));
        expect(seen.every((event) => event !== null)).toBe(true);
        expectNoLeak(`onEvent ${role}`, JSON.stringify(seen));
      }
      expect(events.map((event) => api.access.eventFor({ workspaces: { [ids.otherWs]: ['hr'] } }, event))).toEqual(events.map(() => null));
    });
  });
}

suite('sqlite', driverSkip('sqlite'), async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-field-access-'));
  const storage = sqliteStorage({ filename: join(dir, 'fields.db') });
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
