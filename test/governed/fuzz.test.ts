/**
 * Fuzzing every governed route with fast-check: random methods, paths, query strings, headers,
 * tokens and bodies; then hostile inputs (deep nesting, very long strings for every format and
 * free-text field, prototype-named keys in bodies and token claims, JSON Patch copy/move between
 * every pair of fields). Invariants: never a 5xx; every non-2xx answer is the error envelope with
 * a correlation id; a refused request leaves the stored state (records and audit) unchanged; no
 * sensitive or credential value ever shows in the audit or version history.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { CompactSign } from 'jose';
import { memoryStorage } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { describe, expect, it } from 'vitest';
import { driverSkip } from '../storage/drivers.ts';
import { governedSetup, type StorageFactory } from './behaviour.ts';
import { customer, ids, invoice, mint, paths, SECRET, send, type Answer, type Target } from './support.ts';

const uuid = fc.uuid();
const junk = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '0', '-1', '1.5', '1e3', '%', '[]', 'null', 'true', '999999999999999999999'));

/** Reads of everything stored: the three collections (deleted included) and the audit log. */
const storedState = (api: Target, admin: string): Array<Promise<Answer>> => [
  send(api, 'GET', `${paths.customers()}?includeDeleted=true&pageSize=100`, { token: admin }),
  send(api, 'GET', `${paths.invoices()}?includeDeleted=true&pageSize=100`, { token: admin }),
  send(api, 'GET', `${paths.events()}?includeDeleted=true&pageSize=100`, { token: admin }),
  send(api, 'GET', '/v1/audit?limit=100', { token: admin }),
];

// The behaviour suite covers PostgreSQL; fuzzing runs on the two in-process drivers to stay fast.
const drivers: Array<[name: 'memory' | 'sqlite', create: StorageFactory]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => sqliteStorage({ filename: join(mkdtempSync(join(tmpdir(), 'cellgate-fuzz-')), 'fuzz.db') })],
];

describe.each(drivers)('governed routes under fuzz (%s)', (name, create) => {
  it.skipIf(Boolean(driverSkip(name)))('never answer 5xx, always the envelope, and refused requests change nothing', async () => {
    const s = await governedSetup(create);
    const admin = s.tokens.admin;
    const c = (await send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ notes: 'n' }) })).body.data;
    const i = (await send(s.api, 'POST', paths.invoices(), { token: admin, body: invoice() })).body.data;
    const e = (await send(s.api, 'POST', paths.events(), { token: admin, body: { kind: 'k' } })).body.data;
    const expired = await mint({ roles: ['admin'], expiresIn: Math.floor(Date.now() / 1000) - 100 });
    const tampered = `${admin.slice(0, -3)}${admin.slice(-3) === 'AAA' ? 'BBB' : 'AAA'}`;

    const snapshot = async () => (await Promise.all(storedState(s.api, admin))).map((part: Answer) => part.text).join('\n');

    const base = fc.constantFrom(
      paths.customers(),
      paths.invoices(),
      paths.events(),
      '/v1/audit',
      paths.customers(ids.otherWs),
      paths.invoices(ids.ws, ids.otherCell),
    );
    const idPart = fc.oneof(fc.constantFrom(c.id, i.id, e.id), uuid, junk.map(encodeURIComponent));
    const path = fc.oneof(
      base,
      fc.tuple(base, idPart).map(([b, id]) => `${b}/${id}`),
      fc.tuple(base, idPart, fc.constantFrom('rollback', 'versions', 'other')).map(([b, id, sub]) => `${b}/${id}/${sub}`),
      fc
        .array(fc.oneof(junk.map(encodeURIComponent), fc.constant('v1'), fc.constant('workspaces'), uuid), { maxLength: 6 })
        .map((segments) => `/${segments.join('/')}`),
    );
    const queryKey = fc.oneof(
      fc.constantFrom(
        'page',
        'pageSize',
        'sortBy',
        'sortDir',
        'includeDeleted',
        'q',
        'status',
        'status[in]',
        'amount[gt]',
        'dueDate[between]',
        'name[contains]',
        'expectedVersion',
        'limit',
        'cursor',
        'resourceId',
        'resourceType',
        'workspaceId',
      ),
      fc.string({ maxLength: 8 }),
    );
    const query = fc.array(fc.tuple(queryKey, junk), { maxLength: 4 }).map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ''));
    const token = fc.oneof(
      fc.constantFrom<string | undefined>(admin, admin, s.tokens.viewer, s.tokens.editor, s.tokens.otherTenant, expired, tampered, undefined, 'a.b.c'),
      fc.string({ maxLength: 60 }).filter((value) => /^[\x21-\x7e]+$/.test(value)),
      fc.tuple(fc.base64String({ maxLength: 40 }), fc.base64String({ maxLength: 80 }), fc.base64String({ maxLength: 40 })).map((parts) => parts.join('.')),
    );
    const headerName = fc.constantFrom(
      'if-match',
      'idempotency-key',
      'content-type',
      'x-correlation-id',
      'traceparent',
      'x-forwarded-for',
      'user-agent',
      'content-length',
    );
    const headerValue = fc.oneof(
      junk,
      fc.constantFrom(
        '"1"',
        '"2"',
        'W/"1"',
        '*',
        'application/json',
        'text/plain',
        'application/merge-patch+json',
        ids.cell,
        '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      ),
    );
    const headers = fc.dictionary(
      headerName,
      headerValue.filter((v) => /^[\x20-\x7e]*$/.test(v)),
      { maxKeys: 3 },
    );
    const fieldName = fc.constantFrom(
      'name',
      'email',
      'status',
      'notes',
      'annualRevenue',
      'amount',
      'dueDate',
      'invoiceNumber',
      'kind',
      'payload',
      'expectedVersion',
      'patch',
      'targetVersion',
      'id',
      'version',
      '__proto__',
      'constructor',
    );
    const fieldValue = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(1, 2, 'lead', 'PAID', [{ op: 'replace', path: '/name', value: 'x' }], [{ op: 'add', path: '/__proto__/x', value: 1 }]),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.dictionary(fieldName, fieldValue, { maxKeys: 5 }).map((value) => JSON.stringify(value)),
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 40 }),
    );
    const method = fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'HEAD');

    await fc.assert(
      fc.asyncProperty(method, path, query, token, headers, body, async (m, p, q, t, h, b) => {
        const before = await snapshot();
        const allowBody = m !== 'GET' && m !== 'HEAD' && b !== undefined;
        const requestHeaders: Record<string, string> = { ...h };
        if (allowBody && !('content-type' in requestHeaders)) requestHeaders['content-type'] = 'application/json';
        if (!allowBody) delete requestHeaders['content-length'];
        if ('content-length' in requestHeaders) delete requestHeaders['content-length'];
        const answer = await send(s.api, m, `${p}${q}`, {
          ...(t === undefined ? {} : { token: t }),
          headers: requestHeaders,
          ...(allowBody ? { raw: b } : {}),
        });
        expect(answer.status, `${m} ${p}${q} → ${answer.text}`).toBeLessThan(500);
        if (answer.status >= 400) {
          // A HEAD answer has GET's status and headers but no body (RFC 9110), so no envelope to read.
          if (m === 'HEAD') expect(answer.text).toBe('');
          else {
            expect(typeof answer.body?.error, answer.text).toBe('string');
            expect(typeof answer.body?.message).toBe('string');
          }
          const after = await snapshot();
          expect(after, `${m} ${p}${q} changed state but answered ${answer.status}`).toBe(before);
        }
      }),
      { numRuns: 400 },
    );
    expect(s.errors).toEqual([]);
    await s.storage.close();
  });

  it.skipIf(Boolean(driverSkip(name)))(
    'hostile inputs: deep nesting, long strings, prototype keys, patch copy/move between every pair of fields',
    async () => {
      const s = await governedSetup(create, { audit: { storeSnapshots: true } });
      const admin = s.tokens.admin;
      const secrets = ['fuzz-secret@hidden.example', 'fuzz-secret-phone', 'fuzz-secret-notes', 'tok_fuzz_secret'];
      const c = (await send(s.api, 'POST', paths.customers(), { token: admin, body: customer({ email: secrets[0], phone: secrets[1], notes: secrets[2] }) }))
        .body.data;
      const i = (await send(s.api, 'POST', paths.invoices(), { token: admin, body: invoice({ paymentToken: secrets[3] }) })).body.data;
      const e = (await send(s.api, 'POST', paths.events(), { token: admin, body: { kind: 'k', payload: { a: [1] } } })).body.data;
      const targets = [
        {
          url: `${paths.customers()}/${c.id}`,
          collection: paths.customers(),
          base: customer(),
          fields: ['name', 'email', 'phone', 'status', 'notes', 'annualRevenue'],
        },
        {
          url: `${paths.invoices()}/${i.id}`,
          collection: paths.invoices(),
          base: invoice(),
          fields: ['invoiceNumber', 'customerId', 'customerName', 'amount', 'dueDate', 'status', 'paymentToken'],
        },
        { url: `${paths.events()}/${e.id}`, collection: paths.events(), base: { kind: 'k' } as Record<string, unknown>, fields: ['kind', 'payload'] },
      ];
      const history = async () => {
        const parts = await Promise.all([
          ...storedState(s.api, admin),
          ...targets.slice(0, 2).map((target) => send(s.api, 'GET', `${target.url}/versions?limit=100`, { token: admin })),
        ]);
        return {
          state: parts
            .slice(0, 4)
            .map((part: Answer) => part.text)
            .join('\n'),
          history: parts
            .slice(3)
            .map((part: Answer) => part.text)
            .join('\n'),
        };
      };

      // Tokens whose claims carry prototype-named keys, signed for real.
      const now = Math.floor(Date.now() / 1000);
      const sign = (json: string) =>
        new CompactSign(new TextEncoder().encode(json)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
      const protoName = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty');
      const protoTokens = await Promise.all(
        ['__proto__', 'constructor', 'prototype', 'toString'].flatMap((key) => [
          sign(`{"sub":"${ids.editor}","tenant_id":"${ids.tenant}","exp":${now + 600},"workspaces":{"${key}":["admin"],"${ids.ws}":["editor"]}}`),
          sign(`{"sub":"${ids.editor}","tenant_id":"${ids.tenant}","exp":${now + 600},"${key}":{"roles":["admin"]},"roles":{"${key}":1}}`),
          sign(`{"sub":"${ids.editor}","tenant_id":"${ids.tenant}","exp":1e400,"workspaces":{"${key}":["admin"]}}`),
        ]),
      );
      const token = fc.oneof({ arbitrary: fc.constantFrom(admin, s.tokens.editor), weight: 4 }, { arbitrary: fc.constantFrom(...protoTokens), weight: 1 });

      // Very long strings for every format and free-text field, around every length cap.
      const lengths = fc.constantFrom(0, 1, 35, 36, 37, 63, 64, 65, 253, 254, 255, 511, 512, 513, 2047, 2048, 2049, 20_000, 200_000);
      const unit = fc.constantFrom('a', '.', '@', ' ', '-', ':', '0', '9', 'T', 'Z', '/', 'é', '\u4e00', '😀');
      const longString = fc.tuple(fc.array(unit, { minLength: 1, maxLength: 8 }), lengths, fc.constantFrom('', 'a@', 'https://', '2026-01-01T', ids.cell)).map(
        ([pattern, length, prefix]) =>
          `${prefix}${pattern
            .join('')
            .repeat(Math.ceil(length / pattern.length))
            .slice(0, length)}`,
      );
      // Deep nesting around the 64-level limit and far past it.
      const depth = fc.constantFrom(1, 30, 60, 62, 63, 64, 65, 66, 200, 3_000);
      const deep = fc
        .tuple(depth, fc.constantFrom('{"a":', '[', '{"__proto__":'))
        .map(([levels, open]) => `${open.repeat(levels)}1${(open === '[' ? ']' : '}').repeat(levels)}`);
      const number = fc.constantFrom('1e400', '-1e400', '1', '0.5', '1e308');
      const jsonValue = fc.oneof(
        longString.map((value) => JSON.stringify(value)),
        deep,
        number,
        fc.tuple(protoName, deep).map(([key, inner]) => `{"${key}":${inner}}`),
        fc.tuple(protoName, number).map(([key, n]) => `{"nested":{"${key}":{"x":[${n}]}}}`),
        fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
      );
      const allFields = [...new Set(targets.flatMap((target) => target.fields)), '__proto__', 'constructor', 'prototype'];
      const members = fc.uniqueArray(fc.tuple(fc.constantFrom(...allFields), jsonValue), { maxLength: 4, selector: ([key]) => key });
      // Hostile members over an otherwise valid body, so creates get past the required fields.
      const objectText = (pairs: Array<[string, string]>, base: Record<string, unknown> = {}) => {
        const kept = Object.entries(base)
          .filter(([key]) => !pairs.some(([name]) => name === key))
          .map(([key, value]): [string, string] => [key, JSON.stringify(value)]);
        return `{${[...kept, ...pairs].map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
      };
      const pointer = (target: (typeof targets)[number]) =>
        fc.oneof(
          fc.constantFrom(...target.fields.map((field) => `/${field}`)),
          fc.constantFrom(...target.fields.map((field) => `/${field}/a`)),
          protoName.map((key) => `/payload/${key}`),
        );
      const request = fc.oneof(
        // Create with hostile members, sometimes with an Idempotency-Key.
        fc.tuple(fc.constantFrom(...targets), members, fc.boolean()).map(([target, pairs, keyed]) => ({
          method: 'POST',
          url: target.collection,
          body: objectText(pairs, target.base),
          key: keyed ? 'fuzz-key' : undefined,
        })),
        // Merge PATCH with hostile members.
        fc
          .tuple(fc.constantFrom(...targets), members)
          .map(([target, pairs]) => ({ method: 'PATCH', url: target.url, body: objectText([...pairs, ['expectedVersion', 'VERSION']]), key: undefined })),
        // JSON Patch: one copy/move between a pair of top-level fields (every pair can come up).
        fc.constantFrom(...targets).chain((target) =>
          fc.tuple(fc.constantFrom('copy', 'move'), fc.constantFrom(...target.fields), fc.constantFrom(...target.fields)).map(([op, from, path]) => ({
            method: 'PATCH',
            url: target.url,
            body: `{"expectedVersion":VERSION,"patch":[{"op":"${op}","from":"/${from}","path":"/${path}"}]}`,
            key: undefined,
          })),
        ),
        // JSON Patch: several operations, nested paths and hostile values.
        fc.constantFrom(...targets).chain((target) =>
          fc
            .array(
              fc.oneof(
                fc
                  .tuple(fc.constantFrom('copy', 'move'), pointer(target), pointer(target))
                  .map(([op, from, path]) => `{"op":"${op}","from":"${from}","path":"${path}"}`),
                fc
                  .tuple(fc.constantFrom('add', 'replace', 'test'), pointer(target), jsonValue)
                  .map(([op, path, value]) => `{"op":"${op}","path":"${path}","value":${value}}`),
              ),
              { minLength: 1, maxLength: 4 },
            )
            .map((operations) => ({ method: 'PATCH', url: target.url, body: `{"expectedVersion":VERSION,"patch":[${operations.join(',')}]}`, key: undefined })),
        ),
      );

      await fc.assert(
        fc.asyncProperty(request, token, async (r, t) => {
          const before = await history();
          const version = String((await send(s.api, 'GET', r.url, { token: admin })).body?.data?.version ?? 1);
          const headers: Record<string, string> = { 'content-type': 'application/json', ...(r.key === undefined ? {} : { 'idempotency-key': r.key }) };
          const answer = await send(s.api, r.method, r.url, { token: t, headers, raw: r.body.replace('VERSION', version) });
          expect(answer.status, `${r.method} ${r.url} ${r.body.slice(0, 300)} → ${answer.text.slice(0, 300)}`).toBeLessThan(500);
          const after = await history();
          if (answer.status >= 400) {
            expect(typeof answer.body?.error, answer.text).toBe('string');
            expect(after.state, `${r.method} ${r.url} changed state but answered ${answer.status}`).toBe(before.state);
          }
          for (const secret of secrets) expect(after.history, `${r.method} ${r.url} ${r.body.slice(0, 300)} leaked a secret`).not.toContain(secret);
          expect(({} as Record<string, unknown>).roles).toBeUndefined();
        }),
        { numRuns: 150 },
      );
      expect(s.errors).toEqual([]);
      await s.storage.close();
    },
    300_000,
  );
});
