/** Adapter conformance for node:http through `toNodeHandler`. */
import { createServer } from 'node:http';
import { toNodeHandler } from 'cellgate/adapters/node';
import { runAdapterConformance } from 'cellgate/testing';
import { listen } from './support.ts';

runAdapterConformance({
  name: 'node',
  start: async (handler, { prefix, parseJson }) => {
    const cellgate = toNodeHandler(handler);
    const server = createServer((req, res) => {
      if (req.url === '/__host/own') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('host route');
      if (prefix && !req.url?.startsWith(prefix)) return void res.writeHead(404).end();
      if (!parseJson || req.method === 'GET') return cellgate(req, res, () => res.writeHead(404).end('host 404'));
      // A minimal body parser, like a framework's: reads the stream, leaves the parsed value on req.body.
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        (req as typeof req & { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
        cellgate(req, res, () => res.writeHead(404).end('host 404'));
      });
    });
    return listen(server);
  },
});
