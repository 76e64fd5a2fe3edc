/**
 * Fuzzing every governed route with fast-check: random methods, paths, query strings, headers,
 * tokens and bodies. Invariants: never a 5xx; every non-2xx answer is the error envelope with a
 * correlation id; a refused request leaves the stored state (records and audit) unchanged.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { memoryStorage } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { describe, expect, it } from 'vitest';
import { driverSkip } from '../storage/drivers.ts';
import { governedSetup, type StorageFactory } from './behaviour.ts';
import { customer, ids, invoice, mint, paths, send, type Answer } from './support.ts';

const uuid = fc.uuid();
const junk = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '0', '-1', '1.5', '1e3', '%', '[]', 'null', 'true', '999999999999999999999'));

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

    const snapshot = async () => {
      const parts = await Promise.all([
        send(s.api, 'GET', `${paths.customers()}?includeDeleted=true&pageSize=100`, { token: admin }),
        send(s.api, 'GET', `${paths.invoices()}?includeDeleted=true&pageSize=100`, { token: admin }),
        send(s.api, 'GET', `${paths.events()}?includeDeleted=true&pageSize=100`, { token: admin }),
        send(s.api, 'GET', '/v1/audit?limit=100', { token: admin }),
      ]);
      return parts.map((part: Answer) => part.text).join('\n');
    };

    const base = fc.constantFrom(paths.customers(), paths.invoices(), paths.events(), '/v1/audit', paths.customers(ids.otherWs), paths.invoices(ids.ws, ids.otherCell));
    const idPart = fc.oneof(fc.constantFrom(c.id, i.id, e.id), uuid, junk.map(encodeURIComponent));
    const path = fc.oneof(
      base,
      fc.tuple(base, idPart).map(([b, id]) => `${b}/${id}`),
      fc.tuple(base, idPart, fc.constantFrom('rollback', 'versions', 'other')).map(([b, id, sub]) => `${b}/${id}/${sub}`),
      fc.array(fc.oneof(junk.map(encodeURIComponent), fc.constant('v1'), fc.constant('workspaces'), uuid), { maxLength: 6 }).map((segments) => `/${segments.join('/')}`),
    );
    const queryKey = fc.oneof(
      fc.constantFrom('page', 'pageSize', 'sortBy', 'sortDir', 'includeDeleted', 'q', 'status', 'status[in]', 'amount[gt]', 'dueDate[between]', 'name[contains]', 'expectedVersion', 'limit', 'cursor', 'resourceId', 'resourceType', 'workspaceId'),
      fc.string({ maxLength: 8 }),
    );
    const query = fc.array(fc.tuple(queryKey, junk), { maxLength: 4 }).map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ''));
    const token = fc.oneof(
      fc.constantFrom<string | undefined>(admin, admin, s.tokens.viewer, s.tokens.editor, s.tokens.otherTenant, expired, tampered, undefined, 'a.b.c'),
      fc.string({ maxLength: 60 }).filter((value) => /^[\x21-\x7e]+$/.test(value)),
      fc.tuple(fc.base64String({ maxLength: 40 }), fc.base64String({ maxLength: 80 }), fc.base64String({ maxLength: 40 })).map((parts) => parts.join('.')),
    );
    const headerName = fc.constantFrom('if-match', 'idempotency-key', 'content-type', 'x-correlation-id', 'traceparent', 'x-forwarded-for', 'user-agent', 'content-length');
    const headerValue = fc.oneof(junk, fc.constantFrom('"1"', '"2"', 'W/"1"', '*', 'application/json', 'text/plain', 'application/merge-patch+json', ids.cell, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'));
    const headers = fc.dictionary(headerName, headerValue.filter((v) => /^[\x20-\x7e]*$/.test(v)), { maxKeys: 3 });
    const fieldName = fc.constantFrom('name', 'email', 'status', 'notes', 'annualRevenue', 'amount', 'dueDate', 'invoiceNumber', 'kind', 'payload', 'expectedVersion', 'patch', 'targetVersion', 'id', 'version', '__proto__', 'constructor');
    const fieldValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(1, 2, 'lead', 'PAID', [{ op: 'replace', path: '/name', value: 'x' }], [{ op: 'add', path: '/__proto__/x', value: 1 }]));
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
        const answer = await send(s.api, m, `${p}${q}`, { ...(t === undefined ? {} : { token: t }), headers: requestHeaders, ...(allowBody ? { raw: b } : {}) });
        expect(answer.status, `${m} ${p}${q} → ${answer.text}`).toBeLessThan(500);
        if (answer.status >= 400) {
          expect(typeof answer.body?.error, answer.text).toBe('string');
          expect(typeof answer.body?.message).toBe('string');
          const after = await snapshot();
          expect(after, `${m} ${p}${q} changed state but answered ${answer.status}`).toBe(before);
        }
      }),
      { numRuns: 400 },
    );
    expect(s.errors).toEqual([]);
    await s.storage.close();
  });
});
