/**
 * The server of the list-memory benchmark, in its own process: a governed API on `DATABASE_URL`
 * (`sqlite:<file>` or `postgres://…`), served on 127.0.0.1 with the node adapter. With
 * `LIST_READ=whole` its driver ignores `maxLength`, so every list page is read in one query and
 * answered in one piece, as before docs/decisions/B25.md; otherwise pages are read in batches and
 * streamed. `GET /__bench` answers this process's memory (RSS and its peak, from /proc). Prints
 * `listening on <url>`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGovernedApi, type StorageDriver } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';
import { storageFromUrl } from 'cellgate/node';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { SECRET } from '../governed/support.ts';

/** A `Vm…` figure of /proc/self/status, in MiB. */
const vm = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

const driver = await storageFromUrl(process.env.DATABASE_URL);
const storage: StorageDriver =
  process.env.LIST_READ === 'whole'
    ? {
        ...driver,
        list(model, query) {
          const { maxLength: _ignored, ...whole } = query;
          return driver.list(model, whole);
        },
      }
    : driver;
const api = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT] });
await api.migrate();
const node = toNodeHandler(api);
const server = createServer((request, response) => {
  if (request.url !== '/__bench') return void node(request, response);
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ rssMiB: vm('VmRSS'), peakMiB: vm('VmHWM') }));
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
