/**
 * Governed resources over HTTP on the memory driver, as ratios to floors measured in the same run:
 * - create / PATCH / GET through node:http + the node adapter vs `GET /health` on the same server;
 * - the cost of JWT (HS256) verification per request: the same GET with a token vs with an
 *   `auth` function returning a fixed actor (no JWT).
 * History length (10 vs 10,000 versions) for PATCH and rollback is measured on the service in
 * governed-core.bench.ts.
 * Run: npx vitest bench --run test/bench/governed-http.bench.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { composeHandlers, createFetchHandler, createGovernedApi, memoryStorage, signDevToken, type Actor, type GovernedApi } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';
import { afterAll, beforeAll, bench, describe } from 'vitest';

const secret = 'bench-secret-bench-secret-bench-secret-00';
const tenant = '11111111-1111-4111-8111-111111111111';
const ws = '33333333-3333-4333-8333-333333333333';
const actor: Actor = {
  id: '77777777-7777-4777-8777-777777777777',
  type: 'user',
  tenantId: tenant,
  roles: ['admin'],
  workspaces: {},
  permissions: ['audit:read', 'audit:restore'],
};
const entity = JSON.parse(readFileSync(new URL('../../examples/entities/customer.entity.json', import.meta.url), 'utf8')) as never;
const body = JSON.stringify({ name: 'Acme', email: 'a@acme.example', status: 'lead', annualRevenue: 1 });
const collection = `/v1/workspaces/${ws}/customers`;

async function listen(api: GovernedApi) {
  const health = createFetchHandler(async (request) => (new URL(request.url).pathname === '/health' ? Response.json({ status: 'ok' }) : undefined));
  const server = createServer(toNodeHandler(composeHandlers(health, api)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let url = '';
let token = '';
let server: ReturnType<typeof createServer> | undefined;
let patchUrl = '';
let version = 1;
let jwtApi: GovernedApi;
let plainApi: GovernedApi;
let itemPath = '';

beforeAll(async () => {
  token = await signDevToken({ secret, tenantId: tenant, sub: actor.id, roles: ['admin'], permissions: actor.permissions });
  jwtApi = createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: [entity] });
  await jwtApi.migrate();
  ({ server, url } = await listen(jwtApi));
  const created = (await (
    await fetch(`${url}${collection}`, { method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } })
  ).json()) as { data: { id: string } };
  patchUrl = `${url}${collection}/${created.data.id}`;
  itemPath = `${collection}/${created.data.id}`;
  plainApi = createGovernedApi({ storage: memoryStorage(), auth: async () => actor, resources: [entity] });
  await plainApi.migrate();
  const plainCreated = await plainApi.resources.customers!.service.create({ actor, scope: { workspaceId: ws } }, JSON.parse(body));
  // Same id path shape for both; the plain API answers 404 for the other id, so use its own.
  plainItem = `${collection}/${plainCreated.data.id}`;
});
let plainItem = '';
// Vitest runs only top-level hooks around benches; the interleaved ratios run here, before the server stops.
afterAll(async () => {
  await interleavedRatios();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
}, 120_000);

/** Long enough to smooth a busy machine; warm-up so JIT does not favour later entries. */
const options = { time: 2000, warmupTime: 500, warmupIterations: 50 };

const headers = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

describe('governed over HTTP (memory) vs GET /health on the same server', () => {
  bench(
    'GET /health (floor)',
    async () => {
      await (await fetch(`${url}/health`)).arrayBuffer();
    },
    options,
  );
  bench(
    'POST create',
    async () => {
      await (await fetch(`${url}${collection}`, { method: 'POST', body, headers: headers() })).arrayBuffer();
    },
    options,
  );
  bench(
    'PATCH',
    async () => {
      const response = await fetch(patchUrl, {
        method: 'PATCH',
        body: JSON.stringify({ expectedVersion: version, annualRevenue: version }),
        headers: headers(),
      });
      if (response.status === 200) version += 1;
      await response.arrayBuffer();
    },
    options,
  );
  bench(
    'GET item',
    async () => {
      await (await fetch(patchUrl, { headers: headers() })).arrayBuffer();
    },
    options,
  );
});

/** Median of a list of durations. */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The same four requests interleaved round by round, so load spikes of a shared machine hit every
 * kind alike; prints the medians and each kind's requests/s as a ratio to GET /health.
 */
async function interleavedRatios(rounds = 400): Promise<void> {
  const kinds: Record<string, () => Promise<Response>> = {
    'GET /health': () => fetch(`${url}/health`),
    'POST create': () => fetch(`${url}${collection}`, { method: 'POST', body, headers: headers() }),
    PATCH: async () => {
      const response = await fetch(patchUrl, {
        method: 'PATCH',
        body: JSON.stringify({ expectedVersion: version, annualRevenue: version }),
        headers: headers(),
      });
      if (response.status === 200) version += 1;
      return response;
    },
    'GET item': () => fetch(patchUrl, { headers: headers() }),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, call] of Object.entries(kinds)) {
      const start = performance.now();
      await (await call()).arrayBuffer();
      if (round >= 50) times[name]!.push(performance.now() - start);
    }
  }
  // JWT cost: the same in-process GET with an HS256 token vs with an auth function (no JWT).
  const jwt: number[] = [];
  const plain: number[] = [];
  for (let round = 0; round < rounds * 4; round++) {
    let start = performance.now();
    await plainApi(new Request(`http://h${plainItem}`));
    plain.push(performance.now() - start);
    start = performance.now();
    await jwtApi(new Request(`http://h${itemPath}`, { headers: { authorization: `Bearer ${token}` } }));
    jwt.push(performance.now() - start);
  }
  process.stdout.write(
    `[governed-http] JWT HS256 verification: median ${(median(jwt) - median(plain)).toFixed(3)} ms per request (GET item in process ${median(jwt).toFixed(3)} ms vs ${median(plain).toFixed(3)} ms without JWT)\n`,
  );
  const floor = median(times['GET /health']!);
  for (const [name, values] of Object.entries(times)) {
    const m = median(values);
    process.stdout.write(
      `[governed-http] ${name.padEnd(12)} median ${m.toFixed(3)} ms  ${(1000 / m).toFixed(0)} req/s  ratio to /health ${(floor / m).toFixed(2)}\n`,
    );
  }
}

describe('JWT verification cost (in process, GET item)', () => {
  bench(
    'auth function, no JWT (floor)',
    async () => {
      await plainApi(new Request(`http://h${plainItem}`));
    },
    options,
  );
  bench(
    'HS256 JWT verified per request',
    async () => {
      await jwtApi(new Request(`http://h${itemPath}`, { headers: { authorization: `Bearer ${token}` } }));
    },
    options,
  );
});
