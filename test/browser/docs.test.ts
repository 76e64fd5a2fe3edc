/**
 * The docs page in real headless Chromium: it renders the endpoint list from the handler's own
 * OpenAPI document, "Try it out" → Execute on /health shows 200 {"status":"ok"}, and the page
 * requests nothing beyond the loopback server (works with no internet). The page is served under a
 * strict Content-Security-Policy (no inline script, never framed): Chromium enforces it and
 * reports no violation while the page renders and runs, and refuses to frame the page.
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
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
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
  });

  it.each(['', '/contract'])(
    'mounted at "%s": renders the endpoints and executes /health from "Try it out", loading nothing off the loopback server',
    async (prefix) => {
      const page = await browser.newPage();
      const foreign: string[] = [];
      const failed: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.hostname !== '127.0.0.1') foreign.push(request.url());
      });
      page.on('requestfailed', (request) => failed.push(request.url()));
      page.on('pageerror', (error) => failed.push(`pageerror: ${error.message}`));
      // CSP violations: Chromium's console report, and the DOM event (the init script is injected by
      // the browser driver, outside the page's CSP).
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/content security policy|refused to/i.test(message.text())) violations.push(message.text());
      });
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          ((window as unknown as { __violations: string[] }).__violations ??= []).push(`${event.violatedDirective} ${event.blockedURI}`);
        });
      });

      const response = await page.goto(`${base}${prefix}/api/docs`);
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response?.headers()['x-content-type-options']).toBe('nosniff');
      expect(await page.locator('script:not([src])').count()).toBe(0); // no inline script
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
      expect(violations).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? [])).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it('refuses to be framed by another origin (frame-ancestors)', async () => {
    // A second loopback server is another origin (other port) that tries to frame the page.
    const framer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<iframe id="f" src="${base}/api/docs"></iframe>`);
    });
    await new Promise<void>((done) => framer.listen(0, '127.0.0.1', done));
    const page = await browser.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors|refused to (display|frame)/i.test(message.text())) refusals.push(message.text());
    });
    try {
      await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
      await expect.poll(() => refusals.length, { timeout: 10_000 }).toBeGreaterThan(0);
      // The framed document never ran Swagger UI.
      const frame = page.frames().find((f) => f !== page.mainFrame());
      const rendered = frame
        ? await frame
            .locator('.swagger-ui')
            .count()
            .catch(() => 0)
        : 0;
      expect(rendered).toBe(0);
    } finally {
      await page.close();
      await new Promise((done) => framer.close(done));
    }
  }, 60_000);
});
