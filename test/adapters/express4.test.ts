/** Adapter conformance for Express 4 (installed as `express4`) through `toExpress`, with and without `express.json()`. */
import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import express4 from 'express4';
import { toExpress } from 'cellgate/adapters/express';
import { runAdapterConformance } from 'cellgate/testing';
import { listen } from './support.ts';

/** The Express 4 API used here (its own types are not installed; Express 5's differ in details). */
interface Express4App {
  get(path: string, handler: (req: unknown, res: { type(t: string): { send(b: string): void } }) => void): void;
  use(...handlers: unknown[]): void;
}
const create = express4 as unknown as (() => Express4App & RequestListener) & { json(options?: object): unknown };

runAdapterConformance({
  name: 'express 4',
  start: async (handler, { prefix, parseJson }) => {
    const app = create();
    app.get('/__host/own', (_req, res) => res.type('text/plain').send('host route'));
    if (parseJson) app.use(create.json({ limit: '2mb' }));
    if (prefix) app.use(prefix, toExpress(handler));
    else app.use(toExpress(handler));
    return listen(createServer(app));
  },
});
