/**
 * The server of the feed-waiters benchmark, in its own process: a governed API with the change
 * feed on PostgreSQL (`DATABASE_URL`), served on 127.0.0.1 with the node adapter. Besides the API,
 * `GET /__bench` answers this process's waiting feed requests and memory (RSS and its peak, from
 * /proc), so the parent measures the server alone. Prints `listening on <url>`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGovernedApi } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';
import { postgresStorage } from 'cellgate/storage/postgres';
import { waitingFeedRequests } from '../../src/governed/events/wake.ts';
import { SECRET } from '../governed/support.ts';
import { ORDER_DOCUMENT } from '../events/support.ts';

/** A `Vm…` figure of /proc/self/status, in MiB. */
const vm = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

const storage = postgresStorage({ connectionString: process.env.DATABASE_URL!, max: 10 });
const api = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
await api.migrate();
const node = toNodeHandler(api);
const server = createServer((request, response) => {
  if (request.url !== '/__bench') return void node(request, response);
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ waiting: waitingFeedRequests(), rssMiB: vm('VmRSS'), peakMiB: vm('VmHWM') }));
});
server.maxConnections = 10_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
