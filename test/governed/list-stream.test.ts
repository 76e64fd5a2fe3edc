import { describe, expect, it } from 'vitest';
import { createGovernedApi, memoryStorage, type ListQuery, type ListResult, type StorageDriver } from 'cellgate';
import { LIST_BATCH_MAX_LENGTH } from '../../src/limits.ts';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { httpDrivers } from '../storage/http-drivers.ts';
import { ids, mint, SECRET, serve } from './support.ts';

const drivers = await httpDrivers('list-stream', 'lists.db');

/** Characters of each record's title: 12 records make a page of about 6 MB, past one batch. */
const TITLE_LENGTH = 500_000;
const RECORDS = 12;

/** What the storage handed over per list read: the first batch's size, then each later batch's. */
interface Reads {
  batches: number[][];
}

/** `storage` whose lists report their batches to `reads`; with `oneQuery`, it reads every page whole (the path before B25). */
function observed(storage: StorageDriver, reads: Reads, oneQuery: boolean): StorageDriver {
  return {
    ...storage,
    async list(model, query: ListQuery): Promise<ListResult> {
      const { maxLength, ...plain } = query;
      const result = await storage.list(model, oneQuery ? plain : query);
      const sizes = [result.records.length];
      reads.batches.push(sizes);
      const rest = result.rest;
      if (rest === undefined) return result;
      return {
        ...result,
        rest: (async function* () {
          for await (const batch of rest) {
            sizes.push(batch.length);
            yield batch;
          }
        })(),
      };
    },
  };
}

/** Status, the headers a client sees (without the transfer framing) and the body's bytes. */
async function fetchRaw(url: string, method: string, token: string): Promise<{ status: number; headers: Record<string, string>; bytes: Buffer }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-correlation-id': '6f1d1a52-8a43-4c70-9a3e-7b0e7d2a1c11', prefer: 'count=exact' },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers)
    if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
  return { status: response.status, headers, bytes };
}

for (const driver of drivers) {
  describe.skipIf(Boolean(driver.skip))(`list pages read in batches on ${driver.name}${driver.skip ? ` (skipped: ${driver.skip})` : ''}`, () => {
    it('streams the exact bytes and headers of the one-piece answer, handed over in batches within the bound', async () => {
      const storage = driver.create();
      const streamed: Reads = { batches: [] };
      const whole: Reads = { batches: [] };
      const api = createGovernedApi({ storage: observed(storage, streamed, false), auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
      const reference = createGovernedApi({ storage: observed(storage, whole, true), auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
      await api.migrate();
      const server = await serve(api);
      const referenceServer = await serve(reference);
      try {
        const token = await mint({ sub: ids.admin, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] } });
        const orders = `/v1/workspaces/${ids.ws}/orders`;
        for (let index = 0; index < RECORDS; index += 1) {
          const created = await fetch(`${server.url}${orders}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ title: `${String.fromCharCode(97 + index)}"é\n`.repeat(TITLE_LENGTH / 4), amount: index }),
          });
          expect(created.status).toBe(201);
        }

        for (const query of ['?pageSize=100', '?pageSize=7&page=2&sortDir=desc', '?pageSize=9&sortBy=updatedAt', '?pageSize=2&page=3']) {
          streamed.batches.length = 0;
          const got = await fetchRaw(`${server.url}${orders}${query}`, 'GET', token);
          const expected = await fetchRaw(`${referenceServer.url}${orders}${query}`, 'GET', token);
          expect(got.status).toBe(200);
          expect(got.headers).toEqual(expected.headers);
          expect(got.bytes.equals(expected.bytes)).toBe(true);
          expect(got.headers['cache-control']).toBe('no-store');
          expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
          const body = JSON.parse(got.bytes.toString('utf8'));
          expect(body.meta.total).toBe(RECORDS);
          // The storage handed the page over in batches of at most the bound (each record is 500,000 characters stored).
          const [sizes] = streamed.batches;
          expect(sizes!.reduce((sum, size) => sum + size, 0)).toBe(body.data.length);
          for (const size of sizes!) expect(size).toBeLessThanOrEqual(Math.floor(LIST_BATCH_MAX_LENGTH / TITLE_LENGTH));
          if (body.data.length > Math.floor(LIST_BATCH_MAX_LENGTH / TITLE_LENGTH)) expect(sizes!.length).toBeGreaterThan(1);
        }

        // A page within one batch keeps the one-piece answer, with its length; a streamed one has none.
        const small = await fetch(`${server.url}${orders}?pageSize=2`, { headers: { authorization: `Bearer ${token}` } });
        expect(small.headers.get('content-length')).toBe(String((await small.arrayBuffer()).byteLength));
        const large = await fetch(`${server.url}${orders}?pageSize=100`, { headers: { authorization: `Bearer ${token}` } });
        expect(large.headers.get('content-length')).toBeNull();
        await large.arrayBuffer();

        // HEAD: GET's status and headers, no body.
        const head = await fetchRaw(`${server.url}${orders}?pageSize=100`, 'HEAD', token);
        const get = await fetchRaw(`${server.url}${orders}?pageSize=100`, 'GET', token);
        expect(head.status).toBe(200);
        expect(head.bytes.length).toBe(0);
        expect(head.headers).toEqual(get.headers);
      } finally {
        await server.close();
        await referenceServer.close();
        await storage.close();
      }
    }, 120_000);
  });
}

describe('a list page that fails while it is read', () => {
  it('answers the error envelope before the first byte, and cuts the connection after it', async () => {
    const storage = memoryStorage();
    let failFirst = false;
    const failing: StorageDriver = {
      ...storage,
      async list(model, query) {
        if (failFirst) throw new Error('database lost before the page');
        const result = await storage.list(model, query);
        const rest = result.rest;
        if (rest === undefined) return result;
        return {
          ...result,
          rest: (async function* () {
            for await (const batch of rest) {
              yield batch;
              throw new Error('database lost between two batches');
            }
          })(),
        };
      },
    };
    const errors: unknown[] = [];
    const api = createGovernedApi({ storage: failing, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT], onError: (error) => errors.push(error) });
    await api.migrate();
    const server = await serve(api);
    try {
      const token = await mint({ sub: ids.admin, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] } });
      const orders = `${server.url}/v1/workspaces/${ids.ws}/orders`;
      for (let index = 0; index < RECORDS; index += 1) {
        const created = await fetch(orders, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: String(index).repeat(TITLE_LENGTH), amount: index }),
        });
        expect(created.status).toBe(201);
      }
      // After the first batch went out: the status is sent, so the only honest signal is a cut.
      const cut = await fetch(`${orders}?pageSize=100`, { headers: { authorization: `Bearer ${token}` } });
      expect(cut.status).toBe(200);
      await expect(cut.arrayBuffer()).rejects.toThrow();
      // The cause reaches the host's hook, never the client.
      expect(errors.map((error) => (error as Error).message)).toEqual(['database lost between two batches']);
      // Before it: the usual envelope, with nothing of the cause.
      failFirst = true;
      const refused = await fetch(`${orders}?pageSize=100`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).toBe(500);
      const body = (await refused.json()) as { error: string; message: string };
      expect(body.error).toBe('INTERNAL_ERROR');
      expect(body.message).not.toContain('database lost');
      // The server goes on serving.
      failFirst = false;
      expect((await fetch(`${orders}?pageSize=2`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await server.close();
      await storage.close();
    }
  }, 60_000);
});
