/**
 * The carrier a request used decides 409 or 412 (docs/decisions/B04.md), also when the conditional UPDATE
 * matches no row because a concurrent writer moved the version after our read. On PostgreSQL
 * (READ COMMITTED, a pool of connections) racing writers reach that path; every If-Match refusal
 * must be 412 and every body or query `expectedVersion` refusal 409.
 */
import { createGovernedApi } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverSkip } from '../storage/drivers.ts';
import { createDatabase, startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { demoEntity, ids, mint, SECRET } from './support.ts';

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const skip = server.ok ? undefined : server.skip;
const ROUNDS = 25;
const RACERS = 8;

describe.skipIf(Boolean(skip))(`409 vs 412 under racing writers on PostgreSQL${skip ? ` (skipped, reason: ${skip})` : ''}`, () => {
  let database: TestPostgres;
  let storage: ReturnType<typeof postgresStorage>;
  let api: ReturnType<typeof createGovernedApi>;
  let token = '';
  const collection = `http://h/v1/workspaces/${ids.ws}/customers`;

  beforeAll(async () => {
    if (!server.ok) return;
    database = await createDatabase(server.db.url);
    storage = postgresStorage({ connectionString: database.url, max: RACERS });
    api = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [demoEntity('customer')] as never[] });
    await api.migrate();
    token = await mint({ roles: ['admin'] });
  }, 60_000);

  afterAll(async () => {
    if (!server.ok) return;
    await storage?.close();
    await database?.stop();
    await server.db.stop();
  }, 60_000);

  const call = async (method: string, url: string, headers: Record<string, string> = {}, body?: unknown) => {
    const response = await api(
      new Request(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: response.status, body: (await response.json()) as { error?: string; data?: { id: string }; meta?: { version: number } } };
  };

  it('answers 412 to every refused If-Match and 409 to every refused body/query version', async () => {
    const created = await call('POST', collection, {}, { name: 'Race', email: 'race@example.com', status: 'lead' });
    expect(created.status).toBe(201);
    const item = `${collection}/${created.body.data!.id}`;
    const refusals = { ifMatch: new Map<number, number>(), body: new Map<number, number>() };
    const tally = (map: Map<number, number>, status: number) => map.set(status, (map.get(status) ?? 0) + 1);
    let version = 1;
    for (let round = 0; round < ROUNDS; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: RACERS }, (_, racer) =>
          racer % 2 === 0
            ? call('PATCH', item, { 'if-match': `"${version}"` }, { name: `r${round}-${racer}` }).then((answer) => ({ carrier: 'ifMatch' as const, ...answer }))
            : call('PATCH', item, {}, { expectedVersion: version, name: `r${round}-${racer}` }).then((answer) => ({ carrier: 'body' as const, ...answer })),
        ),
      );
      expect(
        answers.filter((answer) => answer.status === 200),
        `round ${round}`,
      ).toHaveLength(1);
      for (const answer of answers) if (answer.status !== 200) tally(refusals[answer.carrier], answer.status);
      version += 1;
    }
    expect([...refusals.ifMatch.keys()]).toEqual([412]);
    expect([...refusals.body.keys()]).toEqual([409]);
    const refused = [...refusals.ifMatch.values(), ...refusals.body.values()].reduce((sum, count) => sum + count, 0);
    expect(refused).toBe(ROUNDS * (RACERS - 1));

    // Deletes race the same way: If-Match against ?expectedVersion=. A loser that reads after the
    // winner committed finds the record deleted (404); otherwise its carrier decides.
    const answered = { ifMatch: new Set<number>(), body: new Set<number>() };
    for (let round = 0; round < ROUNDS; round += 1) {
      const target =
        round === 0
          ? item
          : `${collection}/${(await call('POST', collection, {}, { name: `D${round}`, email: 'd@example.com', status: 'lead' })).body.data!.id}`;
      const current = round === 0 ? version : 1;
      const deletes = await Promise.all(
        Array.from({ length: RACERS }, (_, racer) =>
          racer % 2 === 0
            ? call('DELETE', target, { 'if-match': `"${current}"` }).then((answer) => ({ carrier: 'ifMatch' as const, ...answer }))
            : call('DELETE', `${target}?expectedVersion=${current}`).then((answer) => ({ carrier: 'body' as const, ...answer })),
        ),
      );
      expect(
        deletes.filter((answer) => answer.status === 200),
        `delete round ${round}`,
      ).toHaveLength(1);
      for (const answer of deletes) if (answer.status !== 200) answered[answer.carrier].add(answer.status);
    }
    expect([...answered.ifMatch].filter((status) => status !== 404)).toEqual([412]);
    expect([...answered.body].filter((status) => status !== 404)).toEqual([409]);
  }, 120_000);
});
