/**
 * Cost of event emission on PostgreSQL (`DATABASE_URL`'s server, else a throwaway cluster),
 * printed as `[events bench]` lines, measured in the same run:
 * - one governed PATCH of a tier-2 entity (audit + outbox append under the per-tenant order lock)
 *   against the same PATCH of the same entity as tier-3 (audit only, no event): p50 ratio;
 * - throughput of 8 concurrent writers in one tenant (their commits serialise on the order lock)
 *   against 8 writers in 8 tenants (no shared lock).
 */
import { afterAll, bench, describe } from 'vitest';
import { createGovernedService, defineEntity, type Actor, type GovernedContext } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { startTestPostgres } from '../support/postgres.ts';
import { timingPair } from './storage-bench-support.ts';

const report = (line: string) => console.log(`[events bench] ${line}`);
const server = await startTestPostgres();
if (!server.ok) report(`postgres skipped: ${server.skip}`);

const entity = (tier: 'tier-2' | 'tier-3', name: string) =>
  defineEntity({
    $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
    name,
    key: `bench.${name.toLowerCase()}`,
    version: '1.0.0',
    description: 'Bench entity',
    scope: 'workspace-shared',
    governance_tier: tier,
    permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
    fields: { title: { type: 'string' }, amount: { type: 'number' } },
  });

function context(tenantId = crypto.randomUUID()): GovernedContext {
  const workspaceId = crypto.randomUUID();
  const actor: Actor = { id: 'bench', type: 'service', tenantId, roles: ['admin'], workspaces: { [workspaceId]: ['admin'] }, permissions: [] };
  return { actor, scope: { workspaceId } };
}

describe.skipIf(!server.ok)('events on postgres', async () => {
  if (!server.ok) return;
  const storage = postgresStorage({ connectionString: server.db.url, max: 10 });
  afterAll(async () => {
    await storage.close();
    await server.db.stop();
  });
  const emitting = createGovernedService({ entity: entity('tier-2', 'Emitting'), storage });
  const silent = createGovernedService({ entity: entity('tier-3', 'Silent'), storage });
  await storage.migrate([emitting.model, silent.model]);

  const ctx = context();
  const subjects = await Promise.all(
    [emitting, silent].map(async (service) => ({ service, id: (await service.create(ctx, { title: 't', amount: 0 })).data.id, version: 1 })),
  );
  const patch = (subject: (typeof subjects)[number]) => async () => {
    subject.version = (await subject.service.update(ctx, subject.id, { expectedVersion: subject.version, amount: subject.version })).meta.version;
  };
  const pair = await timingPair(patch(subjects[0]!), patch(subjects[1]!), 300);
  report(
    `PATCH p50 (alternately): tier-2 with event ${pair.a.toFixed(3)} ms, tier-3 without ${pair.b.toFixed(3)} ms, emitting reaches ${(pair.b / pair.a).toFixed(2)} of the audit-only write`,
  );

  async function throughput(tenants: string[]): Promise<number> {
    const started = performance.now();
    await Promise.all(
      tenants.map(async (tenant) => {
        const writer = context(tenant);
        for (let index = 0; index < 50; index += 1) await emitting.create(writer, { title: 'c', amount: index });
      }),
    );
    return (tenants.length * 50) / ((performance.now() - started) / 1000);
  }
  const one = crypto.randomUUID();
  const shared = await throughput(Array(8).fill(one));
  const spread = await throughput(Array.from({ length: 8 }, () => crypto.randomUUID()));
  report(`8 concurrent writers: one tenant ${shared.toFixed(0)} creates/s, 8 tenants ${spread.toFixed(0)} creates/s (ratio ${(shared / spread).toFixed(2)})`);

  bench('PATCH tier-2 (event)', patch(subjects[0]!));
  bench('PATCH tier-3 (no event)', patch(subjects[1]!));
});
