/**
 * Hardening of the governed routes (issue 12, governed half), over HTTP on every driver: linear
 * format checks, nesting bounds on programmatic calls and patches, JWT claims read as own
 * properties, time claims that must be finite, impossible dates refused in bodies and filters,
 * non-finite numbers anywhere, JSON Patch copy/move out of redacted fields, and idempotency keys
 * with a lifetime, a sweep and no field values stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStorage, type GovernedApiOptions, type StorageDriver } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { CompactSign } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { driverSkip } from '../storage/drivers.ts';
import { createDatabase, startTestPostgres } from '../support/postgres.ts';
import { governedSetup, type StorageFactory } from './behaviour.ts';
import { customer, expectError, ids, invoice, paths, SECRET, send, type Answer } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-hardening-'));
const cleanup: Array<() => Promise<void>> = [];
let count = 0;

const postgres = driverSkip('postgres') ? { ok: false as const, skip: driverSkip('postgres')! } : await startTestPostgres();
const drivers: Array<[string, StorageFactory | string]> = [
  ['memory', driverSkip('memory') ?? (() => memoryStorage())],
  [
    'sqlite',
    driverSkip('sqlite') ??
      (() => {
        const driver = sqliteStorage({ filename: join(dir, `hardening-${count++}.db`) });
        cleanup.push(() => driver.close());
        return driver;
      }),
  ],
  [
    'postgres',
    postgres.ok
      ? async (): Promise<StorageDriver> => {
          const database = await createDatabase(postgres.db.url);
          const driver = postgresStorage({ connectionString: database.url });
          cleanup.push(async () => {
            await driver.close();
            await database.stop();
          });
          return driver;
        }
      : postgres.skip,
  ],
];

afterAll(async () => {
  for (const step of cleanup) await step();
  if (postgres.ok) await postgres.db.stop();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** A token signed with jose over a payload given as raw JSON text (so it may hold `1e400`). */
async function signRaw(payloadJson: string): Promise<string> {
  return new CompactSign(new TextEncoder().encode(payloadJson)).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(SECRET));
}

/** A tier-2 entity with an object field (tier-3, like the demo activity events, keeps no diff). */
const notesEntity = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Note',
  key: 'work.note',
  version: '1.0.0',
  description: 'A note with free-form metadata.',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: { title: { type: 'string' }, meta: { type: 'object', optional: true } },
};

/** A JSON text nested `depth` levels inside `{"a": …}`. */
const deepJson = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepValue = (depth: number): unknown => JSON.parse(deepJson(depth));

const elapsed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await fn();
  return [result, performance.now() - started];
};

for (const [driver, factory] of drivers) {
  if (typeof factory === 'string') {
    describe.skip(`governed hardening (${driver}), skipped (reason: ${factory})`, () => undefined);
    continue;
  }
  const setup = (overrides?: Partial<GovernedApiOptions>) => governedSetup(factory, overrides);

  describe(`governed hardening (${driver})`, () => {
    it('checks e-mail addresses in linear time: the quadratic input gets 400 at once on POST, merge PATCH and JSON Patch', async () => {
      const s = await setup();
      const admin = s.tokens.admin;
      const evil = `a@${'.'.repeat(128_000)} `;
      const [post, postMs] = await elapsed(() => send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ email: evil }) }));
      expectError(post, 400, 'VALIDATION_ERROR');
      expect(post.body.details.fields).toEqual([{ path: 'email', message: 'Expected an email address of at most 254 characters' }]);
      const created = await send(s.api, 'POST', paths.customers(), { token: admin, body: customer() });
      const url = `${paths.customers()}/${created.body.data.id}`;
      const [merge, mergeMs] = await elapsed(() => send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 1, email: evil } }));
      expectError(merge, 400, 'VALIDATION_ERROR');
      const [patch, patchMs] = await elapsed(() =>
        send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 1, patch: [{ op: 'replace', path: '/email', value: evil }] } }),
      );
      expectError(patch, 400, 'VALIDATION_ERROR');
      // The backtracking pattern took about 9 s per request on this input; linear work takes milliseconds.
      expect(Math.max(postMs, mergeMs, patchMs)).toBeLessThan(1000);
      // The 254-character cap is exact.
      const longest = `${'a'.repeat(64)}@${'b'.repeat(185)}.com`;
      expect(longest.length).toBe(254);
      expect((await send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ email: longest }) })).status).toBe(201);
      expectError(await send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ email: `a${longest}` }) }), 400, 'VALIDATION_ERROR');
      for (const bad of ['a@b', '@b.c', 'a@b.', 'a@@b.c', 'a b@c.d', 'a@.c', 'a@b.c\n']) {
        expectError(await send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ email: bad }) }), 400, 'VALIDATION_ERROR');
      }
    });

    it('refuses programmatic bodies nested deeper than 64 levels with 400, never a stack overflow', async () => {
      const s = await setup();
      const service = s.api.resources['activity-events']!.service;
      const context = { actor: { id: ids.admin, type: 'user' as const, tenantId: ids.tenant, roles: ['admin'], workspaces: {}, permissions: [] } };
      for (const depth of [65, 5_000]) {
        const error = await service.create(context, { kind: 'k', payload: deepValue(depth) }).then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
        const keyed = await service.create(context, { kind: 'k', payload: deepValue(depth) }, { idempotencyKey: `deep-${depth}` }).then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(keyed).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
      }
      const created = await service.create(context, { kind: 'k', payload: deepValue(10) });
      const update = await service
        .update(context, created.data.id, { expectedVersion: 1, patch: [{ op: 'add', path: '/payload/b', value: deepValue(5_000) }] })
        .then(
          () => null,
          (caught: unknown) => caught,
        );
      expect(update).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
      expect(s.errors).toEqual([]);
    });

    it('over HTTP, a deep body with an Idempotency-Key and a deep JSON Patch value get 400 in the envelope', async () => {
      const s = await setup();
      const admin = s.tokens.admin;
      const keyed = await send(s.api, 'POST', paths.events(), {
        token: admin,
        raw: `{"kind":"k","payload":${deepJson(3_000)}}`,
        headers: { 'content-type': 'application/json', 'idempotency-key': 'deep' },
      });
      expect(keyed.status).toBe(400);
      const created = await send(s.api, 'POST', paths.events(), { token: admin, body: { kind: 'k', payload: {} } });
      const url = `${paths.events()}/${created.body.data.id}`;
      const patch = await send(s.api, 'PATCH', url, {
        token: admin,
        raw: `{"expectedVersion":1,"patch":[{"op":"add","path":"/payload/a","value":${deepJson(5_000)}}]}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(patch.status).toBe(400);
      expect(patch.body.error).toMatch(/^(BAD_REQUEST|VALIDATION_ERROR)$/);
      expect(s.errors).toEqual([]);
    });

    it('bounds what a JSON Patch can build: nesting past 64 levels and copies that double a field get 400', async () => {
      const s = await setup();
      const admin = s.tokens.admin;
      const created = await send(s.api, 'POST', paths.events(), { token: admin, body: { kind: 'k', payload: { list: [1] } } });
      const url = `${paths.events()}/${created.body.data.id}`;
      // Each op nests one level deeper than the last: small body, deep result.
      const deeper = Array.from({ length: 80 }, (_, index) => ({ op: 'add', path: `/payload${'/a'.repeat(index + 1)}`, value: {} }));
      const deep = await send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 1, patch: deeper } });
      expectError(deep, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(deep.body.details.fields)).toContain('nested deeper than 64');
      // Each op doubles the list: 2^30 values from a 2 KB body.
      const doubling = [
        { op: 'add', path: '/payload/copy', value: [] },
        ...Array.from({ length: 30 }, () => [
          { op: 'copy', from: '/payload/list', path: '/payload/copy' },
          { op: 'add', path: '/payload/list/-', value: 0 },
          { op: 'move', from: '/payload/copy', path: '/payload/list/-' },
        ]).flat(),
      ];
      const [grown, ms] = await elapsed(() => send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 1, patch: doubling } }));
      expectError(grown, 400, 'VALIDATION_ERROR');
      expect(ms).toBeLessThan(5_000);
      const tooMany = Array.from({ length: 1_001 }, () => ({ op: 'test', path: '/kind', value: 'k' }));
      expectError(await send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 1, patch: tooMany } }), 400, 'VALIDATION_ERROR');
      expect((await send(s.api, 'GET', url, { token: admin })).body.data.version).toBe(1);
    });

    it('a token whose workspaces claim has prototype-named keys gets 401 (malformed: workspace ids are UUIDs), never 500, on governed and audit routes', async () => {
      const s = await setup();
      for (const name of ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty']) {
        const token = await signRaw(
          JSON.stringify({ sub: ids.editor, tenant_id: ids.tenant, roles: [], permissions: [], exp: Math.floor(Date.now() / 1000) + 600 }).replace(
            /}$/,
            `,"workspaces":{"${name}":["admin"]},"roles":["viewer"]}`,
          ),
        );
        for (const path of [paths.customers(), paths.invoices(), '/v1/audit']) {
          const answer = await send(s.api, 'GET', path, { token });
          expectError(answer, 401, 'UNAUTHENTICATED');
        }
        // A workspace id named like a prototype member grants nothing.
        const write = await send(s.api, 'POST', paths.customers(), { token, body: customer() });
        expectError(write, 401, 'UNAUTHENTICATED');
      }
      // Top-level claims named like prototype members are ignored, and roles are never inherited.
      const odd = await signRaw(
        `{"sub":"${ids.editor}","tenant_id":"${ids.tenant}","__proto__":{"roles":["admin"]},"constructor":{"x":1},"exp":${Math.floor(Date.now() / 1000) + 600}}`,
      );
      expectError(await send(s.api, 'POST', paths.customers(), { token: odd, body: customer() }), 403, 'FORBIDDEN');
      expect(({} as Record<string, unknown>).roles).toBeUndefined();
      expect(s.errors).toEqual([]);
    });

    it('refuses validly signed tokens with non-finite or absurd time claims (exp 1e400 never expiring) with 401', async () => {
      const s = await setup();
      const now = Math.floor(Date.now() / 1000);
      const base = `"sub":"${ids.admin}","tenant_id":"${ids.tenant}","roles":["admin"]`;
      for (const claims of [
        `"exp":1e400`,
        `"exp":${now + 600},"nbf":-1e400`,
        `"exp":${now + 600},"iat":1e400`,
        `"exp":253402300800`,
        `"exp":${now + 600},"iat":-5`,
      ]) {
        const token = await signRaw(`{${base},${claims}}`);
        const answer = await send(s.api, 'GET', paths.customers(), { token });
        expectError(answer, 401, 'UNAUTHENTICATED');
      }
      // The same token with sane time claims is accepted: the signature is not what is refused.
      expect((await send(s.api, 'GET', paths.customers(), { token: await signRaw(`{${base},"exp":${now + 600},"iat":${now}}`) })).status).toBe(200);
    });

    it('refuses impossible calendar dates with 400 in bodies and filters, and reads zone-less values as UTC whatever TZ is', async () => {
      const s = await setup();
      const admin = s.tokens.admin;
      for (const dueDate of [
        '2026-02-30T00:00:00Z',
        '2026-02-29',
        '2026-13-01T00:00:00Z',
        '2026-01-01T24:00:00Z',
        '2026-01-01T10:60:00Z',
        '2026-01-01T10:00:60Z',
        '2026-01-01T10:00:00+24:00',
        `2026-01-01T10:00:00.${'1'.repeat(100)}Z`,
      ]) {
        const answer = await send(s.api, 'POST', paths.invoices(), { token: admin, body: invoice({ dueDate }) });
        expectError(answer, 400, 'VALIDATION_ERROR');
        expect(answer.body.details.fields[0].path).toBe('dueDate');
      }
      for (const query of ['dueDate[after]=2026-02-30T00:00:00Z', 'dueDate[before]=2026-02-30', 'dueDate[between]=2026-01-01,2026-04-31']) {
        expectError(await send(s.api, 'GET', `${paths.invoices()}?${query}`, { token: admin }), 400, 'VALIDATION_ERROR');
      }
      const leap = await send(s.api, 'POST', paths.invoices(), { token: admin, body: invoice({ dueDate: '2028-02-29 10:00:00.5+02:00' }) });
      expect(leap.body.data.dueDate).toBe('2028-02-29T08:00:00.500Z');
      const early = await send(s.api, 'POST', paths.invoices(), { token: admin, body: invoice({ invoiceNumber: 'EARLY', dueDate: '2026-03-01T02:00:00' }) });
      expect(early.body.data.dueDate).toBe('2026-03-01T02:00:00.000Z');
      const previous = process.env.TZ;
      try {
        for (const zone of ['UTC', 'America/New_York']) {
          process.env.TZ = zone;
          const listed = await send(s.api, 'GET', `${paths.invoices()}?dueDate[between]=2026-03-01T00:00:00,2026-03-01T23:59:59`, { token: admin });
          expect(
            listed.body.data.map((row: { invoiceNumber: string }) => row.invoiceNumber),
            zone,
          ).toEqual(['EARLY']);
          const body = await send(s.api, 'POST', paths.invoices(), {
            token: admin,
            body: invoice({ invoiceNumber: `TZ-${zone}`, dueDate: '2026-07-01T12:00:00' }),
          });
          expect(body.body.data.dueDate, zone).toBe('2026-07-01T12:00:00.000Z');
        }
      } finally {
        if (previous === undefined) delete process.env.TZ;
        else process.env.TZ = previous;
      }
    });

    it('refuses non-finite numbers nested anywhere in object fields with 400 (create, merge PATCH, JSON Patch)', async () => {
      const s = await setup();
      const admin = s.tokens.admin;
      const json = { 'content-type': 'application/json' };
      for (const payload of ['{"x":1e400}', '{"a":[1,2,-1e400]}', '{"a":{"b":{"c":[{"d":1e999}]}}}']) {
        const answer = await send(s.api, 'POST', paths.events(), { token: admin, raw: `{"kind":"k","payload":${payload}}`, headers: json });
        expectError(answer, 400, 'VALIDATION_ERROR');
        expect(answer.body.details.fields).toEqual([{ path: 'payload', message: 'Numbers must be finite' }]);
      }
      const created = await send(s.api, 'POST', paths.events(), { token: admin, body: { kind: 'k', payload: { x: 1 } } });
      const url = `${paths.events()}/${created.body.data.id}`;
      expectError(
        await send(s.api, 'PATCH', url, { token: admin, raw: '{"expectedVersion":1,"payload":{"x":[1e400]}}', headers: json }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await send(s.api, 'PATCH', url, {
          token: admin,
          raw: '{"expectedVersion":1,"patch":[{"op":"add","path":"/payload/y","value":{"z":1e400}}]}',
          headers: json,
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect((await send(s.api, 'GET', url, { token: admin })).body.data).toMatchObject({ version: 1, payload: { x: 1 } });
    });

    it('audits a change of some 125,000 keys inside an object field (a 1 MB body) with one replace, never a stack overflow', async () => {
      const s = await setup({ resources: [notesEntity] as never[] });
      const admin = s.tokens.admin;
      const collection = `/v1/workspaces/${ids.ws}/notes`;
      const created = await send(s.api, 'POST', collection, { token: admin, body: { title: 't', meta: { a: 1, b: 2 } } });
      expect(created.status).toBe(201);
      const url = `${collection}/${created.body.data.id}`;
      // Three-character keys: 125,000 of them fit in the default 1 MB body limit.
      const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
      const keys = Array.from({ length: 125_000 }, (_, i) => chars[Math.floor(i / 3844) % 62]! + chars[Math.floor(i / 62) % 62]! + chars[i % 62]!);
      const meta = Object.fromEntries(keys.map((key) => [key, 0]));
      const big = await send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 1, meta } });
      expect(big.status).toBe(200);
      expect(Object.keys(big.body.data.meta)).toHaveLength(125_000);
      // A small change inside the field is still recorded key by key.
      const small = await send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 2, meta: { ...meta, aaa: 1, aab: 2 } } });
      expect(small.status).toBe(200);
      const history = await send(s.api, 'GET', `/v1/audit?resourceId=${created.body.data.id}&limit=10`, { token: admin });
      expect(history.status).toBe(200);
      const diffs = new Map(history.body.data.map((record: { resourceVersion: number; diff: unknown }) => [record.resourceVersion, record.diff]));
      const bigDiff = diffs.get(2) as Array<{ op: string; path: string; value: Record<string, number> }>;
      expect(bigDiff.map(({ op, path }) => ({ op, path }))).toEqual([{ op: 'replace', path: '/meta' }]);
      expect(Object.keys(bigDiff[0]!.value)).toHaveLength(125_000);
      expect(diffs.get(3)).toEqual([
        { op: 'replace', path: '/meta/aaa', value: 1 },
        { op: 'replace', path: '/meta/aab', value: 2 },
      ]);
      expect(s.errors).toEqual([]);
    }, 60_000);

    it('bounds the size of a record across writes: a create or PATCH past recordLimit gets 413 and changes nothing', async () => {
      const s = await setup({
        bodyLimit: 1000,
        resources: [notesEntity, { entity: { ...notesEntity, key: 'work.memo', name: 'Memo' }, recordLimit: 600 }] as never[],
      });
      const admin = s.tokens.admin;
      const collection = `/v1/workspaces/${ids.ws}/notes`;
      // Without recordLimit, four times bodyLimit (here 1,000 bytes): 4,000 characters of JSON.
      const created = await send(s.api, 'POST', collection, { token: admin, body: { title: 't', meta: { a: 'x'.repeat(800) } } });
      expect(created.status).toBe(201);
      const url = `${collection}/${created.body.data.id}`;
      // Each JSON Patch fits the body limit; together they would grow the record past 4,000.
      let version = 1;
      for (const key of ['b', 'c', 'd']) {
        const grown = await send(s.api, 'PATCH', url, {
          token: admin,
          body: { expectedVersion: version, patch: [{ op: 'add', path: `/meta/${key}`, value: 'x'.repeat(800) }] },
        });
        expect(grown.status).toBe(200);
        version = grown.body.data.version;
      }
      const refused = await send(s.api, 'PATCH', url, {
        token: admin,
        body: { expectedVersion: version, patch: [{ op: 'add', path: '/meta/e', value: 'x'.repeat(800) }] },
      });
      expectError(refused, 413, 'PAYLOAD_TOO_LARGE');
      expect(refused.body.details).toMatchObject({ limit: 4000 });
      expect(refused.body.details.length).toBeGreaterThan(4000);
      const merge = await send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: version, title: 'y'.repeat(900) } });
      expectError(merge, 413, 'PAYLOAD_TOO_LARGE');
      // Nothing was written: same version, same fields, no audit record beyond the accepted writes.
      const after = await send(s.api, 'GET', url, { token: admin });
      expect(after.body.data.version).toBe(version);
      expect(Object.keys(after.body.data.meta)).toEqual(['a', 'b', 'c', 'd']);
      const history = await send(s.api, 'GET', `/v1/audit?resourceId=${created.body.data.id}`, { token: admin });
      expect(history.body.data).toHaveLength(version);
      // A shrinking write is accepted again.
      const shrunk = await send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: version, meta: { a: 1 } } });
      expect(shrunk.status).toBe(200);
      // recordLimit set on the resource: a create past it is refused, and no record appears.
      const memos = `/v1/workspaces/${ids.ws}/memos`;
      expectError(await send(s.api, 'POST', memos, { token: admin, body: { title: 't', meta: { a: 'x'.repeat(700) } } }), 413, 'PAYLOAD_TOO_LARGE');
      expect((await send(s.api, 'GET', memos, { token: admin })).body.data).toEqual([]);
      expect((await send(s.api, 'POST', memos, { token: admin, body: { title: 't', meta: { a: 'x'.repeat(400) } } })).status).toBe(201);
      expect(s.errors).toEqual([]);
    });

    it('refuses a recordLimit that is not a positive integer when the API is built', async () => {
      for (const recordLimit of [0, -1, 1.5, Number.NaN, '100']) {
        await expect(setup({ recordLimit: recordLimit as never })).rejects.toThrow(/recordLimit/);
      }
    });

    it('keeps prototype-named keys in bodies as plain data: no 500, no pollution', async () => {
      const s = await setup();
      const admin = s.tokens.admin;
      const raw = '{"kind":"k","payload":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":1}}';
      const created = await send(s.api, 'POST', paths.events(), { token: admin, raw, headers: { 'content-type': 'application/json' } });
      expect(created.status, created.text).toBe(201);
      const read = await send(s.api, 'GET', `${paths.events()}/${created.body.data.id}`, { token: admin });
      expect(Object.keys(read.body.data.payload).sort()).toEqual(['__proto__', 'constructor', 'prototype']);
      expect(read.text).toContain('"__proto__":{"polluted":true}');
      const top = await send(s.api, 'POST', paths.customers(), {
        token: admin,
        raw: '{"name":"A","email":"a@b.co","status":"lead","__proto__":{"status":"x"}}',
        headers: { 'content-type': 'application/json' },
      });
      expectError(top, 400, 'VALIDATION_ERROR');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(s.errors).toEqual([]);
    });

    it('never lets JSON Patch copy/move carry a redacted value into a field redacted less, for every pair of fields', async () => {
      const s = await setup({ audit: { storeSnapshots: true } });
      const admin = s.tokens.admin;
      const secrets = { email: 'secret-email@hidden.example', phone: 'secret-phone-555', notes: 'secret-notes-text', paymentToken: 'tok_secret_credential' };
      const resources = [
        {
          path: paths.customers(),
          body: customer({ email: secrets.email, phone: secrets.phone, notes: secrets.notes }),
          fields: ['name', 'email', 'phone', 'status', 'notes', 'annualRevenue'],
        },
        {
          path: paths.invoices(),
          body: invoice({ paymentToken: secrets.paymentToken }),
          fields: ['invoiceNumber', 'customerId', 'customerName', 'amount', 'dueDate', 'status', 'paymentToken'],
        },
      ];
      // Classes as the entity documents declare them; copy/move is allowed only into the same or a withheld class.
      const classOf: Record<string, string> = { email: 'sensitive', phone: 'sensitive', notes: 'hash', paymentToken: 'credential' };
      const allowed = (from: string, to: string): boolean => {
        const source = classOf[from] ?? 'value';
        const target = classOf[to] ?? 'value';
        if (from === to || source === 'value' || source === target || target === 'credential') return true;
        return source !== 'credential' && target === 'sensitive';
      };
      for (const resource of resources) {
        for (const op of ['copy', 'move'] as const) {
          for (const from of resource.fields) {
            for (const to of resource.fields) {
              const created = await send(s.api, 'POST', resource.path, { token: admin, body: resource.body });
              const url = `${resource.path}/${created.body.data.id}`;
              const answer = await send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 1, patch: [{ op, from: `/${from}`, path: `/${to}` }] } });
              expect(answer.status, `${op} ${from} → ${to}: ${answer.text}`).toBeLessThan(500);
              if (!allowed(from, to)) {
                expectError(answer, 400, 'VALIDATION_ERROR');
                expect(answer.body.details.fields[0].path).toBe('patch.0.from');
              }
              const versions = await send(s.api, 'GET', `${url}/versions`, { token: admin });
              const audit = await send(s.api, 'GET', `/v1/audit?resourceId=${created.body.data.id}&limit=100`, { token: admin });
              for (const output of [versions.text, audit.text]) {
                for (const [field, secret] of Object.entries(secrets)) expect(output, `${op} ${from} → ${to} shows ${field}`).not.toContain(secret);
              }
            }
          }
        }
      }
      expect(s.errors).toEqual([]);
    }, 120_000);

    it('stores no field value for an Idempotency-Key, replays the first answer, forgets the key after its lifetime and sweeps expired keys', async () => {
      const s = await setup({ idempotency: { ttlMs: 1_500 } });
      const admin = s.tokens.admin;
      const keyed = (key: string, body: Record<string, unknown>): Promise<Answer> =>
        send(s.api, 'POST', paths.invoices(), { token: admin, body, headers: { 'idempotency-key': key } });
      const body = invoice({ paymentToken: 'tok_idem_secret', customerName: 'Personal Name' });
      const first = await keyed('key-1', body);
      expect(first.status).toBe(201);
      const stored = await s.storage.getIdempotency(ids.tenant, ids.admin, 'key-1');
      expect(stored).not.toBeNull();
      expect(stored!.body).not.toContain('tok_idem_secret');
      expect(stored!.body).not.toContain('Personal Name');
      expect(Date.parse(stored!.expiresAt!) - Date.parse(stored!.createdAt)).toBe(1_500);
      // A change after the first answer does not change the replay: it is the state the create made.
      const url = `${paths.invoices()}/${first.body.data.id}`;
      expect((await send(s.api, 'PATCH', url, { token: admin, body: { expectedVersion: 1, amount: 999 } })).status).toBe(200);
      const again = await keyed('key-1', body);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expectError(await keyed('key-1', { ...body, amount: 1 }), 422, 'IDEMPOTENCY_KEY_REUSED');
      // Tier-3 resources keep version states too, so their replays work the same way.
      const event = () =>
        send(s.api, 'POST', paths.events(), { token: admin, body: { kind: 'k', payload: { a: 1 } }, headers: { 'idempotency-key': 'event-key' } });
      const firstEvent = await event();
      expect(firstEvent.status).toBe(201);
      expect((await event()).body).toEqual(firstEvent.body);
      for (const key of ['old-1', 'old-2', 'old-3']) expect((await keyed(key, body)).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      // Past its lifetime the key is forgotten: the repeat creates a new record.
      const later = await keyed('key-1', body);
      expect(later.status).toBe(201);
      expect(later.body.data.id).not.toBe(first.body.data.id);
      // And the keyed create swept the other expired keys.
      for (const key of ['old-1', 'old-2', 'old-3']) expect(await s.storage.getIdempotency(ids.tenant, ids.admin, key)).toBeNull();
      expect((await s.storage.getIdempotency(ids.tenant, ids.admin, 'key-1'))?.body).toContain(later.body.data.id);
      expect(s.errors).toEqual([]);
    });

    it('caps search terms and contains/startsWith values at 200 characters (a substring match costs term × text per row)', async () => {
      const s = await setup();
      const admin = s.tokens.admin;
      const term = 'a'.repeat(200);
      for (const query of [`q=${term}`, `name[contains]=${term}`, `name[startsWith]=${term}`]) {
        expect((await send(s.api, 'GET', `${paths.customers()}?${query}`, { token: admin })).status, query).toBe(200);
        const refused = await send(s.api, 'GET', `${paths.customers()}?${query}b`, { token: admin });
        expectError(refused, 400, 'VALIDATION_ERROR');
        expect(refused.body.details.fields[0].message).toBe('Must be at most 200 characters');
      }
    });

    it('lists at most 100 field issues and counts the rest, so a body of unknown members gets a small answer', async () => {
      const s = await setup();
      const body: Record<string, unknown> = customer();
      for (let index = 0; index < 90_000; index++) body[`k${index}`] = 1;
      const sent = JSON.stringify(body);
      const [answer, ms] = await elapsed(() =>
        send(s.api, 'POST', paths.customers(), { token: s.tokens.admin, raw: sent, headers: { 'content-type': 'application/json' } }),
      );
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.details.fields).toHaveLength(100);
      expect(answer.body.details.fieldsOmitted).toBe(89_900);
      // The answer was about four times the body before the cap.
      expect(answer.text.length).toBeLessThan(sent.length / 50);
      expect(ms).toBeLessThan(5_000);
    });

    it('rejects an invalid idempotency lifetime when the API is built', async () => {
      await expect(setup({ idempotency: { ttlMs: 0 } })).rejects.toThrow(/idempotency\.ttlMs/);
      await expect(setup({ idempotency: { ttlMs: Number.POSITIVE_INFINITY } })).rejects.toThrow(/idempotency\.ttlMs/);
    });

    it('bounds the other format checks and long text: overlong UUIDs and date-times refused before any pattern, indexed text capped', async () => {
      const s = await setup();
      const admin = s.tokens.admin;
      expectError(
        await send(s.api, 'POST', paths.invoices(), { token: admin, body: invoice({ customerId: `${ids.viewer}${'0'.repeat(100_000)}` }) }),
        400,
        'VALIDATION_ERROR',
      );
      const [answer, ms] = await elapsed(() =>
        send(s.api, 'POST', paths.invoices(), { token: admin, body: invoice({ dueDate: `2026-01-01T00:00:00${'0'.repeat(500_000)}` }) }),
      );
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(ms).toBeLessThan(1000);
      // Free text that is not indexed is bounded by the body size only.
      const [long, longMs] = await elapsed(() => send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ notes: 'x'.repeat(500_000) }) }));
      expect(long.status).toBe(201);
      expect(longMs).toBeLessThan(5_000);
      // Sortable/filterable text is indexed: PostgreSQL answered 500 (index row too large) past ~2.7 KB.
      const incompressible = (length: number): string => Array.from({ length }, (_, index) => String.fromCharCode(0x4e00 + ((index * 7919) % 20_000))).join('');
      expect((await send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ name: incompressible(512) }) })).status).toBe(201);
      for (const name of [incompressible(513), incompressible(5_000), 'x'.repeat(500_000)]) {
        const refused = await send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ name }) });
        expectError(refused, 400, 'VALIDATION_ERROR');
        expect(refused.body.details.fields).toEqual([{ path: 'name', message: 'Must be at most 512 characters (the field is sortable or filterable)' }]);
      }
      expect(s.errors).toEqual([]);
    });
  });
}
