/**
 * The raw floors for the contract HTTP benchmark, as a separate process: a bare node:http server
 * that answers the same bytes the reference host answers.
 *
 * - `GET /api/primitives`: the catalog bytes (read once from the host), no routing or handler.
 * - `POST /api/validate/manifest`: reads the body, `JSON.parse`, runs the same `validateManifest`
 *   and `JSON.stringify` the host runs, so the ratio isolates the HTTP layer's own cost.
 *
 * Usage: tsx test/bench/contract-http-floor.ts <primitives body file>; prints `listening on <url>`.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { validateManifest } from '../../src/contract/validate/index.ts';

const primitives = readFileSync(process.argv[2]!);
const JSON_TYPE = 'application/json; charset=utf-8';

const server = createServer((req, res) => {
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
});

server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
