/**
 * The contract side's answers on the wire, pinned byte for byte: status line, every header in
 * order (except `Date`) and a digest of the body, for a few routes of the reference app behind the
 * node adapter, HEAD included. The answer path is tuned for speed (issue #33: cached bodies, header
 * lists built once, no per-request copies); this test is what proves a tuning changed nothing a
 * caller receives. The expected values were recorded from the code before those changes.
 */
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'cellgate/adapters/node';
import { createReferenceApp, loadConfig, type ReferenceApp } from 'cellgate/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let app: ReferenceApp;
let server: Server;
let port: number;

beforeAll(async () => {
  app = await createReferenceApp(loadConfig({ PORT: '0', DATABASE_URL: 'memory:' }));
  server = createServer(toNodeHandler(app.handler));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await app.close();
});

/** Status, raw header lines without `Date` (it changes every second), body length and SHA-256. */
function wire(method: string, path: string, body?: string): Promise<string> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i]!.toLowerCase() !== 'date') lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        done([`${res.statusCode}`, ...lines, `body ${bytes.length} ${createHash('sha256').update(bytes).digest('hex')}`].join('\n'));
      });
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

describe('contract answers on the wire (reference app, node adapter)', () => {
  const cases: Array<[string, string, string?]> = [
    ['GET', '/api/primitives'],
    ['HEAD', '/api/primitives'],
    ['GET', '/api/primitives?x=1'],
    ['GET', '/api/primitives/table'],
    ['GET', '/api/schemas/manifest'],
    ['HEAD', '/api/schemas/manifest'],
    ['GET', '/health'],
    ['HEAD', '/health'],
    ['GET', '/api/no-such-route'],
    ['DELETE', '/api/primitives'],
    ['POST', '/api/validate/manifest', '{"manifest":{}}'],
  ];
  it.each(cases)('%s %s answers exactly as before', async (method, path, body) => {
    expect(await wire(method, path, body)).toBe(EXPECTED[`${method} ${path}`]);
  });
});

const EXPECTED: Record<string, string> = {
  'GET /api/primitives':
    '200\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\ncontent-length: 7930\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 7930 cdd918f08cf71986df7eb976ca21c69d5d1f8437aed1ff2372e02ec1b00185f9',
  'HEAD /api/primitives':
    '200\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'GET /api/primitives?x=1':
    '200\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\ncontent-length: 7930\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 7930 cdd918f08cf71986df7eb976ca21c69d5d1f8437aed1ff2372e02ec1b00185f9',
  'GET /api/primitives/table':
    '404\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\ncontent-length: 127\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 127 8a28ea1b0a03d5bf0028044dba6557751ebc28a55d18792bdd18d7a130f2c2c6',
  'GET /api/schemas/manifest':
    '200\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\ncontent-length: 2258\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 2258 2e225e650b4e950fd46f8bdc397b3ec1bd425f8cfe16c0843bab7a6e332587b0',
  'HEAD /api/schemas/manifest':
    '200\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'GET /health':
    '200\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\ncontent-length: 15\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 15 a29ee2b15c494311c52521766e44af56a3ad2248e7a8ab465e5206463c13d288',
  'HEAD /health':
    '200\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'GET /api/no-such-route':
    '404\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\ncontent-length: 74\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 74 d8d72a4cd63f28bfcad49a55c2ec7e9e0d0d36c45ac6899874d24912c95c5515',
  'DELETE /api/primitives':
    '405\nallow: GET, HEAD, OPTIONS\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\ncontent-length: 94\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 94 f1159922fb0f97a97b5c3c2cd1ff3410e10090c3ff397efa19a297ab3af62cc2',
  'POST /api/validate/manifest':
    '200\ncontent-type: application/json; charset=utf-8\nx-content-type-options: nosniff\ncontent-length: 188\nConnection: keep-alive\nKeep-Alive: timeout=5\nbody 188 bf4436f1e01b9c994e5078012a8c49a1f5c4d9666e4f0c62ae273d02c3e68b4c',
};
