/**
 * Time travel over HTTP on a real server (docs/time-travel.md): `GET …/{id}?asOf=`,
 * `…/{id}/versions/{n}`, `…/{id}/changes?from=&to=`, `GET <collection>?asOf=` and
 * `GET /v1/audit?field=`, with their
 * access rules, refusals in the error envelope, `Cache-Control: no-store`, and the paths and
 * parameters in the served OpenAPI document.
 */
import { memoryStorage } from 'cellgate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch } from '../../src/governed/patch.ts';
import { governedSetup } from './behaviour.ts';
import { customer, expectError, paths, send, serve } from './support.ts';

let setup: Awaited<ReturnType<typeof governedSetup>>;
let server: Awaited<ReturnType<typeof serve>>;
let url: string;
let id: string;
/** What each version answered when it was written, and when. */
const written: Array<{ data: Record<string, unknown>; at: string }> = [];

const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

beforeAll(async () => {
  setup = await governedSetup(memoryStorage);
  server = await serve(setup.api);
  url = server.url;
  const token = setup.tokens.admin;
  const created = await send(url, 'POST', paths.customers(), { token, body: customer({ name: 'Then Corp', annualRevenue: 10 }) });
  expect(created.status, created.text).toBe(201);
  id = created.body.data.id;
  written.push({ data: created.body.data, at: created.body.data.updatedAt });
  for (const body of [
    { expectedVersion: 1, status: 'active', annualRevenue: 20 },
    { expectedVersion: 2, patch: [{ op: 'replace', path: '/name', value: 'Now Corp' }] },
  ]) {
    await pause();
    const updated = await send(url, 'PATCH', `${paths.customers()}/${id}`, { token, body });
    expect(updated.status, updated.text).toBe(200);
    written.push({ data: updated.body.data, at: updated.body.data.updatedAt });
  }
  await pause();
  const deleted = await send(url, 'DELETE', `${paths.customers()}/${id}?expectedVersion=3`, { token });
  expect(deleted.status, deleted.text).toBe(200);
  written.push({ data: deleted.body.data, at: deleted.body.data.updatedAt });
});

afterAll(() => server?.close());

const item = () => `${paths.customers()}/${id}`;

describe('time travel over HTTP', () => {
  it('answers a version as { data, meta } with the historical version, its instant and no-store', async () => {
    for (const [index, version] of written.entries()) {
      const answer = await send(url, 'GET', `${item()}/versions/${index + 1}`, { token: setup.tokens.admin });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ data: version.data, meta: expect.objectContaining({ version: index + 1, asOf: version.at }) });
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('etag')).toBe(`"${index + 1}"`);
    }
  });

  it('answers GET ?asOf= with the state current then, a deleted state with deletedAt, and 404 before the record existed', async () => {
    const second = await send(url, 'GET', `${item()}?asOf=${encodeURIComponent(written[1]!.at)}`, { token: setup.tokens.admin });
    expect(second.status, second.text).toBe(200);
    expect(second.body.data).toEqual(written[1]!.data);
    expect(second.body.meta).toMatchObject({ version: 2, asOf: written[1]!.at });
    const later = await send(url, 'GET', `${item()}?asOf=2999-01-01T00:00:00Z`, { token: setup.tokens.admin });
    expect(later.body.data.deletedAt).toBe(written[3]!.data.deletedAt);
    const earlier = new Date(Date.parse(written[0]!.at) - 1000).toISOString();
    expectError(await send(url, 'GET', `${item()}?asOf=${earlier}`, { token: setup.tokens.admin }), 404, 'NOT_FOUND');
    // The live GET of a deleted record is still 404: asOf is what reads the past.
    expectError(await send(url, 'GET', item(), { token: setup.tokens.admin }), 404, 'NOT_FOUND');
  });

  it('answers changes as one JSON Patch in either direction that turns one version into the other', async () => {
    for (const [from, to] of [
      [1, 4],
      [4, 1],
      [2, 3],
      [3, 3],
    ] as const) {
      const answer = await send(url, 'GET', `${item()}/changes?from=${from}&to=${to}`, { token: setup.tokens.admin });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.meta).toEqual({ from, to });
      expect(applyPatch(written[from - 1]!.data, answer.body.data)).toEqual(written[to - 1]!.data);
    }
  });

  it('lists the collection as it was, with asOf in meta', async () => {
    const then = await send(url, 'GET', `${paths.customers()}?asOf=${encodeURIComponent(written[0]!.at)}&status=lead`, { token: setup.tokens.admin });
    expect(then.status, then.text).toBe(200);
    expect(then.body.data.map((record: { id: string }) => record.id)).toContain(id);
    expect(then.body.meta).toMatchObject({ asOf: written[0]!.at });
    const now = await send(url, 'GET', `${paths.customers()}?status=lead`, { token: setup.tokens.admin });
    expect(now.body.data.map((record: { id: string }) => record.id)).not.toContain(id);
  });

  it('refuses bad input with 400 envelopes, unknown versions with 404, and readers without audit:read with 403', async () => {
    const token = setup.tokens.admin;
    for (const path of [
      `${item()}?asOf=yesterday`,
      `${item()}?asOf=${'9'.repeat(500)}`,
      `${item()}/changes?from=1`,
      `${item()}/changes?from=0&to=2`,
      `${item()}/changes?from=1&to=2&x=1`,
      `${item()}/versions/1?limit=3`,
      `${item()}/versions/abc`,
      `${paths.customers()}?asOf=2026-13-01T00:00:00Z`,
      `${paths.customers()}?asOf=2026-01-01T00:00:00Z&page=1000&pageSize=100`,
    ]) {
      expectError(await send(url, 'GET', path, { token }), 400, 'VALIDATION_ERROR');
    }
    expectError(await send(url, 'GET', `${item()}/versions/99`, { token }), 404, 'NOT_FOUND');
    expectError(await send(url, 'GET', `${item()}/changes?from=1&to=99`, { token }), 404, 'NOT_FOUND');
    for (const path of [
      `${item()}/versions/1`,
      `${item()}?asOf=2999-01-01T00:00:00Z`,
      `${item()}/changes?from=1&to=2`,
      `${paths.customers()}?asOf=2999-01-01T00:00:00Z`,
    ]) {
      expectError(await send(url, 'GET', path, { token: setup.tokens.viewer }), 403, 'FORBIDDEN');
    }
    expectError(await send(url, 'POST', `${item()}/versions/1`, { token, body: {} }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers 422 TIME_TRAVEL_DISABLED on a tier-3 entity', async () => {
    const token = setup.tokens.admin;
    const event = await send(url, 'POST', paths.events(), { token, body: { kind: 'login', payload: {} } });
    expect(event.status, event.text).toBe(201);
    const eventId = event.body.data.id as string;
    expectError(await send(url, 'GET', `${paths.events()}/${eventId}/versions/1`, { token }), 422, 'TIME_TRAVEL_DISABLED');
    expectError(await send(url, 'GET', `${paths.events()}/${eventId}?asOf=2999-01-01T00:00:00Z`, { token }), 422, 'TIME_TRAVEL_DISABLED');
  });

  it('answers GET /v1/audit?field= with the records that changed that field, within reach, and refuses a bad field with 400', async () => {
    const token = setup.tokens.admin;
    const audit = await send(url, 'GET', `/v1/audit?resourceId=${id}&field=/status`, { token });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.data.map((record: { resourceVersion: number }) => record.resourceVersion)).toEqual([2, 1]);
    const name = await send(url, 'GET', `/v1/audit?resourceId=${id}&field=/name&limit=1`, { token });
    expect(name.body.data.map((record: { resourceVersion: number }) => record.resourceVersion)).toEqual([3]);
    expect(name.body.meta.nextCursor).not.toBeNull();
    const rest = await send(url, 'GET', `/v1/audit?resourceId=${id}&field=/name&limit=1&cursor=${name.body.meta.nextCursor}`, { token });
    expect(rest.body.data.map((record: { resourceVersion: number }) => record.resourceVersion)).toEqual([1]);
    for (const field of ['status', '/', '/a//b', `/${'x'.repeat(300)}`, '/a~2']) {
      expectError(await send(url, 'GET', `/v1/audit?field=${encodeURIComponent(field)}`, { token }), 400, 'VALIDATION_ERROR');
    }
    // Out of reach: a stranger to the workspace sees none of its records, whatever the field.
    const stranger = await send(url, 'GET', `/v1/audit?resourceId=${id}&field=/status`, { token: setup.tokens.otherTenant });
    expect(stranger.body.data).toEqual([]);
  });

  it('describes the new paths and parameters in the OpenAPI document', async () => {
    const document = (await send(url, 'GET', '/v1/openapi.json')).body;
    const base = '/v1/workspaces/{workspaceId}/customers';
    expect(document.paths[`${base}/{id}/versions/{version}`].get.parameters.map((p: { name: string }) => p.name)).toEqual(['workspaceId', 'id', 'version']);
    expect(document.paths[`${base}/{id}/changes`].get.parameters.map((p: { name: string }) => p.name)).toEqual(['workspaceId', 'id', 'from', 'to']);
    expect(document.paths[`${base}/{id}`].get.parameters.map((p: { name: string }) => p.name)).toContain('asOf');
    expect(document.paths[base].get.parameters.map((p: { name: string }) => p.name)).toContain('asOf');
    expect(document.paths['/v1/audit'].get.parameters.map((p: { name: string }) => p.name)).toContain('field');
    expect(Object.keys(document.paths[`${base}/{id}`].get.responses)).toEqual(expect.arrayContaining(['410', '422']));
  });
});
