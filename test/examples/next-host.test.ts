/**
 * The Next host: its OpenAPI and JSON Schema answers work when the host process and the route
 * bundle would otherwise each load cellgate (they used to answer 500: both copies registered the
 * same zod schema ids), and the built CLI finds `examples/next-host` at the repository root of a
 * clone, not beside `dist/`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createReferenceApp, loadConfig } from 'cellgate/host';
import { findNextDir, mountNext } from 'cellgate/host/frameworks';

const root = resolve(import.meta.dirname, '../..');
const nextDir = join(root, 'examples', 'next-host') + sep;

describe('findNextDir', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'cellgate-next-dir-'));
  afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

  it('is the folder itself in the repository', () => {
    expect(findNextDir(nextDir)).toBe(nextDir);
    expect(findNextDir(nextDir.slice(0, -1))).toBe(nextDir);
  });

  it('is <repository>/examples/next-host/ from the built CLI in dist/', () => {
    expect(findNextDir(join(root, 'dist') + sep)).toBe(nextDir);
  });

  it('stays the given folder where no Next app exists (the published package)', () => {
    expect(findNextDir(elsewhere)).toBe(elsewhere + sep);
  });
});

describe('the Next host serving the reference app of the host process', () => {
  it('answers /api/openapi.json and the JSON Schemas with 200', async () => {
    const app = await createReferenceApp(loadConfig({ DATABASE_URL: 'memory:', PORT: '0' }));
    const server = await mountNext(app.handler);
    try {
      const { port } = await server.listen(0, '127.0.0.1');
      for (const path of ['/api/openapi.json', '/api/json-schema/manifest', '/api/json-schema/entity']) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
        expect(Object.keys((await response.json()) as object).length).toBeGreaterThan(0);
      }
      const document = (await (await fetch(`http://127.0.0.1:${port}/api/openapi.json`)).json()) as { openapi: string };
      expect(document.openapi).toMatch(/^3\./);
    } finally {
      await server.close();
      await app.close();
    }
  }, 600_000); // the first start may run `next build`
});
