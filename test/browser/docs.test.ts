/**
 * The docs page in real headless Chromium: it renders the endpoint list from the handler's own
 * OpenAPI document, "Try it out" → Execute on /health shows 200 {"status":"ok"}, and the page
 * requests nothing beyond the loopback server (works with no internet).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { composeHandlers, createContractHandler } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

describe.skipIf(!hasChromium)('docs page in Chromium (skipped when /usr/bin/chromium is not installed)', () => {
  let server: Server;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    // Two mounts on one server: at the root, and under a base path (falls through to the second).
    const root = createContractHandler();
    const based = createContractHandler({ basePath: '/contract', mcp: false });
    server = createServer(toNodeHandler(composeHandlers(root, based)));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
  });

  it.each(['', '/contract'])('mounted at "%s": renders the endpoints and executes /health from "Try it out", loading nothing off the loopback server', async (prefix) => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const failed: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.hostname !== '127.0.0.1') foreign.push(request.url());
    });
    page.on('requestfailed', (request) => failed.push(request.url()));
    page.on('pageerror', (error) => failed.push(`pageerror: ${error.message}`));

    const response = await page.goto(`${base}${prefix}/api/docs`);
    const served: string[] = [];
    page.on('response', (answer) => served.push(new URL(answer.url()).pathname));
    expect(response?.status()).toBe(200);

    // The endpoint list, rendered from /api/openapi.json.
    await page.locator('.opblock-summary-path', { hasText: '/api/validate/manifest' }).first().waitFor({ timeout: 20_000 });
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    for (const path of ['/health', '/api/primitives', '/api/schemas/manifest', '/api/guidance/recommend', '/api/examples/{key}']) {
      expect(paths.map((p) => p.replace(/\u200b/g, ''))).toContain(path);
    }

    // Try it out → Execute on GET /health.
    const health = page.locator('.opblock', { has: page.locator('.opblock-summary-path', { hasText: /^\/health$/ }) });
    await health.locator('.opblock-summary').click();
    await health.locator('button.try-out__btn').click();
    await health.locator('button.execute').click();
    // The live response row (the table's header row also has a status column, reading "Code").
    const live = health.locator('.live-responses-table tbody tr.response');
    await live.locator('.response-col_status').first().waitFor({ timeout: 10_000 });
    expect((await live.locator('.response-col_status').first().innerText()).trim()).toBe('200');
    const body = (await live.locator('.response-col_description pre').first().innerText()).replace(/\s+/g, '');
    expect(body).toBe('{"status":"ok"}');

    // The call went to this mount's own /health (the server URL in the document is the base path).
    expect(served).toContain(`${prefix}/health`);
    await page.screenshot({ path: `/tmp/cellgate-docs${prefix.replace('/', '-')}.png`, fullPage: false });
    expect(foreign).toEqual([]);
    expect(failed).toEqual([]);
    await page.close();
  }, 60_000);
});
