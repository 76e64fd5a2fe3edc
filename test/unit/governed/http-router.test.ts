/**
 * The governed router compiled from the operation table: one path lookup per request whatever the
 * number of resources, and access checked before a byte of the body is read.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../../adapters/node/index.ts';
import { createGovernedApi, signDevToken, memoryStorage } from 'cellgate';
import { Customer, TENANT, WS } from './core-fixtures.ts';

const secret = 'router-secret-router-secret-router-secret';
const ACTOR = '0c4e7d21-5b8a-4f6e-9d3c-1a2b3c4d5e6f';

/** Ten workspace resources built from the customer document under different names. */
function tenResources() {
  return Array.from({ length: 10 }, (_, index) => ({ ...Customer, name: `Thing${index}`, key: `crm.thing${index}` }));
}

async function api() {
  const governed = createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: tenResources() as never[] });
  await governed.migrate();
  return governed;
}

const token = (roles: string[]) => signDevToken({ secret, tenantId: TENANT, sub: ACTOR, roles, permissions: ['audit:read'] });

/** Counts `new URL(...)` and `new URLSearchParams(...)` while `fn` runs. */
async function countParses<T>(fn: () => Promise<T>): Promise<{ result: T; urls: number; searchParams: number }> {
  const OriginalURL = globalThis.URL;
  const OriginalParams = globalThis.URLSearchParams;
  let urls = 0;
  let searchParams = 0;
  globalThis.URL = class extends OriginalURL {
    constructor(...args: ConstructorParameters<typeof OriginalURL>) {
      super(...args);
      urls += 1;
    }
  } as typeof URL;
  globalThis.URLSearchParams = class extends OriginalParams {
    constructor(...args: ConstructorParameters<typeof OriginalParams>) {
      super(...args);
      searchParams += 1;
    }
  } as typeof URLSearchParams;
  try {
    return { result: await fn(), urls, searchParams };
  } finally {
    globalThis.URL = OriginalURL;
    globalThis.URLSearchParams = OriginalParams;
  }
}

describe('one compiled router', () => {
  it('parses the URL once per request with 10 resources, whichever resource answers', async () => {
    const governed = await api();
    const bearer = `Bearer ${await token(['admin'])}`;
    const created = await governed(
      new Request(`http://h/v1/workspaces/${WS}/thing9s`, {
        method: 'POST',
        headers: { authorization: bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'A', email: 'a@b.example', status: 'lead' }),
      }),
    );
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    for (const path of [
      `/v1/workspaces/${WS}/thing9s?status=lead&sortBy=name`,
      `/v1/workspaces/${WS}/thing9s/${id}`,
      `/v1/workspaces/${WS}/thing0s`,
      '/v1/audit?limit=5',
    ]) {
      const request = new Request(`http://h${path}`, { headers: { authorization: bearer } });
      const { result, urls, searchParams } = await countParses(() => governed(request));
      expect(result.status, path).toBe(200);
      expect(urls, path).toBe(0);
      expect(searchParams, path).toBeLessThanOrEqual(1);
    }
    // A path no resource owns falls through without parsing its URL either.
    const unowned = new Request('http://h/v1/workspaces/x/nothing');
    const miss = await countParses(() => governed.match(unowned));
    expect(miss.result).toBeUndefined();
    expect(miss.urls).toBe(0);
  });
});

describe('order of work', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('refuses a view-only PATCH with 403 without reading its body (a body that never ends)', async () => {
    const governed = await api();
    const viewer = await token(['viewer']);
    // Fetch level: the body stream never yields and never closes.
    let pulled = false;
    const body = new ReadableStream(
      {
        pull: () => {
          pulled = true;
          return new Promise<void>(() => undefined);
        },
      },
      { highWaterMark: 0 },
    );
    const answer = await governed(
      new Request(`http://h/v1/workspaces/${WS}/thing1s/${ACTOR}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${viewer}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: string }).error).toBe('FORBIDDEN');
    expect(pulled).toBe(false);

    // Over a real socket: headers sent, the body started and never finished.
    server = createServer(toNodeHandler(governed));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'PATCH',
          path: `/v1/workspaces/${WS}/thing1s/${ACTOR}`,
          headers: { authorization: `Bearer ${viewer}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
      req.write('{"expectedVersion": 1, "name": "');
      setTimeout(() => reject(new Error('no answer while the body was still open')), 5000).unref();
    });
    expect(status).toBe(403);
  });
});
