/**
 * The reference host's docs page in real headless Chromium shows both halves, and "Try it out" →
 * Execute on a governed route (with a bearer token given to Swagger UI) answers 200 from the host.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'cellgate/adapters/node';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceApp, loadConfig, type ReferenceApp } from 'cellgate/host';
import { mint, SECRET } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))('governed routes on the docs page in Chromium (skipped, reason: /usr/bin/chromium is not installed)', () => {
  let app: ReferenceApp;
  let server: Server;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    app = await createReferenceApp(loadConfig({ PORT: '0', DATABASE_URL: 'memory:', CELLGATE_JWT_SECRET: SECRET }));
    server = createServer(toNodeHandler(app.handler));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
    await app?.close();
  });

  it('lists governed and contract routes and executes GET /v1/activity-events from "Try it out"', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    expect((await page.goto(`${base}/api/docs`))?.status()).toBe(200);
    await page.locator('.opblock-summary-path', { hasText: '/v1/activity-events' }).first().waitFor({ timeout: 20_000 });
    const paths = (await page.locator('.opblock-summary-path').allInnerTexts()).map((path) => path.replace(/\u200b/g, ''));
    expect(paths).toEqual(expect.arrayContaining(['/health', '/api/validate/manifest', '/v1/workspaces/{workspaceId}/customers', '/v1/audit']));

    // The bearer token, as a user would paste it into "Authorize".
    const token = await mint({ roles: ['admin'] });
    await page.evaluate(
      (value) => (window as unknown as { ui: { preauthorizeApiKey(name: string, value: string): void } }).ui.preauthorizeApiKey('bearerAuth', value),
      token,
    );
    const list = page.locator('.opblock.opblock-get', { has: page.locator('.opblock-summary-path', { hasText: /^\/v1\/activity-events$/ }) });
    await list.locator('.opblock-summary').click();
    await list.locator('button.try-out__btn').click();
    const served: string[] = [];
    page.on('request', (request) =>
      served.push(`${request.method()} ${new URL(request.url()).pathname} ${request.headers().authorization ? 'with-token' : 'no-token'}`),
    );
    await list.locator('button.execute').click();
    const live = list.locator('.live-responses-table tbody tr.response');
    await live.locator('.response-col_status').first().waitFor({ timeout: 10_000 });
    expect((await live.locator('.response-col_status').first().innerText()).trim()).toBe('200');
    const body = JSON.parse(await live.locator('.response-col_description pre').first().innerText()) as { data: unknown[]; meta: { total: number } };
    expect(body).toMatchObject({ data: [], meta: { total: 0, page: 1, pageSize: 20 } });
    expect(served).toContain('GET /v1/activity-events with-token');
    expect(errors).toEqual([]);
    await page.close();
  });
});
