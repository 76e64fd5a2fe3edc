import { describe, expect, it } from 'vitest';
import { createGovernedApi } from 'cellgate';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { httpDrivers } from '../storage/http-drivers.ts';
import { ids, mint, SECRET, send, serve } from './support.ts';

const drivers = await httpDrivers('history-pages', 'history.db');

const PAGE_TEXT = 8 * 1024 * 1024 + 64 * 1024;

/** Every item of a cursor-paged history route, page by page, with each page's text length. */
async function follow(url: string, path: string, token: string): Promise<{ items: any[]; pages: number[] }> {
  const items: any[] = [];
  const pages: number[] = [];
  for (let cursor: string | null = null; ; ) {
    const answer = await send(url, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${cursor === null ? '' : `&cursor=${cursor}`}`, { token });
    expect(answer.status).toBe(200);
    pages.push(answer.text.length);
    items.push(...answer.body.data);
    cursor = answer.body.meta.nextCursor;
    if (cursor === null) return { items, pages };
  }
}

for (const driver of drivers) {
  describe.skipIf(Boolean(driver.skip))(`history pages bounded by size on ${driver.name}${driver.skip ? ` (skipped: ${driver.skip})` : ''}`, () => {
    it('ends /versions and /v1/audit pages before 8 MiB and serves every item once through nextCursor', async () => {
      const storage = driver.create();
      const handler = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
      await handler.migrate();
      const server = await serve(handler);
      try {
        const token = await mint({ sub: ids.admin, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] }, permissions: ['audit:read'] });
        const orders = `/v1/workspaces/${ids.ws}/orders`;
        const created = await send(server.url, 'POST', orders, { token, body: { title: 'a'.repeat(900_000), amount: 0 } });
        expect(created.status).toBe(201);
        const id = created.body.data.id as string;
        for (let version = 1; version < 12; version += 1) {
          const updated = await send(server.url, 'PATCH', `${orders}/${id}`, {
            token,
            body: { expectedVersion: version, title: String(version % 10).repeat(900_000) },
          });
          expect(updated.status).toBe(200);
        }
        const versions = await follow(server.url, `${orders}/${id}/versions`, token);
        expect(versions.items.map((item) => item.version)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
        expect(versions.pages.length).toBeGreaterThan(1);
        for (const length of versions.pages) expect(length).toBeLessThanOrEqual(PAGE_TEXT);
        const audit = await follow(server.url, `/v1/audit?resourceId=${id}`, token);
        expect(audit.items.map((item) => item.resourceVersion)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
        expect(audit.pages.length).toBeGreaterThan(1);
        for (const length of audit.pages) expect(length).toBeLessThanOrEqual(PAGE_TEXT);
      } finally {
        await server.close();
        await storage.close();
      }
    });
  });
}
