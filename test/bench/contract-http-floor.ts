/**
 * The floors for the contract HTTP benchmark, each in its own process, answering the same bytes
 * the reference host answers:
 *
 * - `raw` (the floor of the ratios): bare node:http. `GET /api/primitives` writes the catalog bytes
 *   (read once from the host); `POST /api/validate/manifest` reads the body, `JSON.parse`, runs the
 *   same `validateManifest` and `JSON.stringify`, so the ratio isolates the HTTP layer's own cost.
 * - `fetch` (for attribution only): the same work in a trivial Fetch handler (`new Response(...)`,
 *   no routing, no checks) behind `toNodeHandler`, i.e. the cost of Request/Response objects and
 *   the Node bridge that any Fetch-API handler pays.
 *
 * Usage: tsx test/bench/contract-http-floor.ts <primitives body file> [raw|fetch]; prints
 * `listening on <url>`.
 */
import { createServer, type RequestListener } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createFetchHandler, validateManifest } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';

const primitives = readFileSync(process.argv[2]!);
const primitivesText = primitives.toString('utf8');
const mode = process.argv[3] ?? 'raw';
const JSON_TYPE = 'application/json; charset=utf-8';

const raw: RequestListener = (req, res) => {
  if (req.method === 'GET' && req.url === '/api/primitives') {
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': primitives.length });
    res.end(primitives);
    return;
  }
  if (req.method === 'POST' && req.url === '/api/validate/manifest') {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { manifest: unknown };
      const text = Buffer.from(JSON.stringify(validateManifest(body.manifest)));
      res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': text.length });
      res.end(text);
    });
    return;
  }
  res.writeHead(404).end();
};

const headers: Array<[string, string]> = [['content-type', JSON_TYPE]];
const fetchFloor = toNodeHandler(
  createFetchHandler(async (request) => {
    const path = new URL(request.url).pathname;
    if (request.method === 'GET' && path === '/api/primitives') return new Response(primitivesText, { status: 200, headers });
    if (request.method === 'POST' && path === '/api/validate/manifest') {
      const body = (await request.json()) as { manifest: unknown };
      return new Response(JSON.stringify(validateManifest(body.manifest)), { status: 200, headers });
    }
    return undefined;
  }),
);

const server = createServer(mode === 'fetch' ? fetchFloor : raw);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
