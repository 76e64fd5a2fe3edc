/** Adapter conformance for Express 5 through `toExpress`, with and without `express.json()`. */
import { createServer } from 'node:http';
import express from 'express';
import { toExpress } from 'cellgate/adapters/express';
import { runAdapterConformance } from 'cellgate/testing';
import { listen } from './support.ts';

runAdapterConformance({
  name: 'express',
  start: async (handler, { prefix, parseJson }) => {
    const app = express();
    app.get('/__host/own', (_req, res) => {
      res.type('text/plain').send('host route');
    });
    if (parseJson) app.use(express.json({ limit: '2mb' }));
    if (prefix) app.use(prefix, toExpress(handler));
    else app.use(toExpress(handler));
    app.use((_req, res) => {
      res.status(404).type('text/plain').send('express 404');
    });
    return listen(createServer(app));
  },
});
