/**
 * The change feed under load on PostgreSQL (`DATABASE_URL`'s server, else a throwaway cluster),
 * the server in its own process (feed-waiters-server.ts), printed as `[feed bench]` lines:
 *
 * 1. Idle long-poll waiters against another tenant's reads: the p50 of a governed list of one
 *    tenant with no waiter, then with WAITERS (default 3,000) feed requests waiting (`wait=30`,
 *    re-opened when answered) from 100 other tenants, 30 actors each; and the ratio.
 * 2. A feed reader's memory: EVENTS (default 100) events of about 0.9 MB each, then in a fresh
 *    server three concurrent `GET /v1/events?limit=500`: the server's peak RSS over its RSS before.
 *    Each page stops at 8 MiB of JSON, read by size in the database, whatever `limit` says.
 *
 * Usage: node --import tsx test/bench/feed-waiters.ts
 */
import type { ChildProcess } from 'node:child_process';
import { createGovernedService, type Actor } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { ids, mint } from '../governed/support.ts';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { median, startServer } from './load-support.ts';

const WAITERS = Number(process.env.WAITERS ?? 3000);
const EVENTS = Number(process.env.EVENTS ?? 100);
const LISTS = 300;
const report = (line: string) => console.log(`[feed bench] ${line}`);

const db = await startTestPostgres();
if (!db.ok) {
  report(`skipped: ${db.skip}`);
  process.exit(0);
}
const env = { DATABASE_URL: db.db.url };
const children: ChildProcess[] = [];
const start = async () => {
  const started = await startServer(['test/bench/feed-waiters-server.ts'], env);
  children.push(started.child);
  return started.url;
};
const stats = async (url: string) => (await (await fetch(`${url}/__bench`)).json()) as { waiting: number; rssMiB: number; peakMiB: number };
const until = async (condition: () => Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 200));
};

try {
  const url = await start();
  // The measured tenant: 200 orders in one workspace.
  const lister = await mint({ sub: ids.admin, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] }, permissions: ['audit:read'] });
  for (let index = 0; index < 200; index += 1) {
    await fetch(`${url}/v1/workspaces/${ids.ws}/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lister}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `order ${index}`, amount: index }),
    });
  }
  const listP50 = async () => {
    const times: number[] = [];
    for (let index = 0; index < LISTS; index += 1) {
      const began = performance.now();
      const answer = await fetch(`${url}/v1/workspaces/${ids.ws}/orders?pageSize=20`, { headers: { authorization: `Bearer ${lister}` } });
      await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`list answered ${answer.status}`);
      times.push(performance.now() - began);
    }
    return median(times);
  };
  await listP50(); // warm-up
  const idle = await listP50();

  const tenants = Array.from({ length: 100 }, () => crypto.randomUUID());
  const tokens = await Promise.all(
    Array.from({ length: WAITERS }, (_, index) =>
      mint({ sub: crypto.randomUUID(), tenant: tenants[index % tenants.length]!, roles: ['admin'], permissions: ['audit:read'], expiresIn: '1h' }),
    ),
  );
  let waiting = true;
  const refused = { count: 0 };
  const loops = tokens.map(async (token) => {
    while (waiting) {
      const answer = await fetch(`${url}/v1/events?wait=30`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
      await answer?.arrayBuffer();
      if (answer?.status !== 200) refused.count += 1;
    }
  });
  await until(async () => (await stats(url)).waiting >= WAITERS);
  const busy = await listP50();
  const held = await stats(url);
  report(
    `list p50 of another tenant: ${idle.toFixed(2)} ms with no waiter, ${busy.toFixed(2)} ms with ${held.waiting} idle waiters: ${(busy / idle).toFixed(2)}×`,
  );
  report(`server RSS with ${held.waiting} waiters: ${held.rssMiB.toFixed(0)} MiB; feed requests not answered 200: ${refused.count}`);
  waiting = false;
  for (const child of children.splice(0)) child.kill();
  await Promise.allSettled(loops);

  // A feed reader's memory: large events written in code, read by a fresh server.
  const storage = postgresStorage({ connectionString: db.db.url, max: 4 });
  const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
  const tenantId = crypto.randomUUID();
  const actor: Actor = { id: 'writer', type: 'user', tenantId, roles: ['admin'], workspaces: {}, permissions: [] };
  for (let index = 0; index < EVENTS; index += 1)
    await service.create({ actor, scope: { workspaceId: ids.ws } }, { title: String(index % 10).repeat(900_000), amount: index });
  await storage.close();
  const fresh = await start();
  const reader = await mint({ sub: crypto.randomUUID(), tenant: tenantId, roles: ['admin'], permissions: ['audit:read'] });
  const read = async (limit: number) => {
    const answer = await fetch(`${fresh}/v1/events?limit=${limit}`, { headers: { authorization: `Bearer ${reader}` } });
    return ((await answer.json()) as { data: unknown[] }).data.length;
  };
  await read(1);
  const before = await stats(fresh);
  const served = await Promise.all([read(500), read(500), read(500)]);
  const after = await stats(fresh);
  report(
    `feed memory: ${EVENTS} events of ~0.9 MB, three concurrent limit=500 reads served ${served.join(', ')} events each; server RSS ${before.rssMiB.toFixed(0)} MiB before, peak ${after.peakMiB.toFixed(0)} MiB (+${(after.peakMiB - before.rssMiB).toFixed(0)} MiB, ${((after.peakMiB - before.rssMiB) / 3).toFixed(0)} MiB per reader; page cap 8 MiB)`,
  );
} finally {
  for (const child of children) child.kill();
  await db.db.stop();
}
process.exit(0);
