/**
 * References (issue #28, docs/decisions/B29.md, B30.md) on one driver, in one run: a create whose
 * task references a live project against the same create of an entity whose `project_id` is a plain
 * uuid field (same fields, same table shape, no reference, so no lock and no reference index),
 * alternated in rounds so both see the same machine; then the delete of a project whose 100 tasks
 * cascade (101 audited writes in one transaction).
 *
 * Reports the median time per create of each, their ratio (bound: 1.2), and the cascade's time.
 * Exits 1 when the ratio passes the bound.
 *
 * Usage: npx tsx test/bench/references.ts [sqlite|postgres|both] [creates per round] [rounds]
 * PostgreSQL: `DATABASE_URL`'s server, else a throwaway cluster from the local installation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGovernedApi, defineEntity, type GovernedContext, type StorageDriver } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { postgresStorage } from 'cellgate/storage/postgres';
import { createDatabase, serverBinaries, startCluster } from '../support/postgres.ts';
import { median } from './load-support.ts';

const [which = 'both', perRoundText = '200', roundsText = '5'] = process.argv.slice(2);
const perRound = Number(perRoundText);
const rounds = Number(roundsText);
const BOUND = 1.2;
const CHILDREN = 100;

const common = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  version: '1.0.0',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['member'], edit: ['member'], admin: ['member'] },
} as const;
const Project = defineEntity({ ...common, name: 'Project', key: 'bench.project', description: 'A project', fields: { name: { type: 'string' } } });
const Task = defineEntity({
  ...common,
  name: 'Task',
  key: 'bench.task',
  description: 'A task referencing its project',
  fields: { title: { type: 'string' }, project_id: { type: 'string', format: 'uuid', references: { entity: 'bench.project', on_delete: 'cascade' } } },
});
const PlainTask = defineEntity({
  ...common,
  name: 'PlainTask',
  key: 'bench.plain_task',
  description: 'The same task, project_id without a reference',
  fields: { title: { type: 'string' }, project_id: { type: 'string', format: 'uuid' } },
});

function member(): GovernedContext {
  const workspaceId = crypto.randomUUID();
  return {
    actor: { id: crypto.randomUUID(), type: 'user', tenantId: crypto.randomUUID(), roles: [], workspaces: { [workspaceId]: ['member'] }, permissions: [] },
    scope: { workspaceId },
  };
}

async function measure(name: string, storage: StorageDriver): Promise<{ row: string; ratio: number }> {
  const api = createGovernedApi({
    storage,
    auth: { secret: 'bench-secret-bench-secret-bench-secret-00' },
    resources: { projects: Project, tasks: Task, 'plain-tasks': PlainTask },
  });
  await api.migrate();
  const { projects, tasks } = api.resources;
  const plain = api.resources['plain-tasks']!;
  const ctx = member();
  const project = await projects!.service.create(ctx, { name: 'p' });
  const body = { title: 'a task', projectId: project.data.id };
  // Warm-up: statement caches, JIT, the database's buffers.
  for (let index = 0; index < 50; index += 1) {
    await tasks!.service.create(ctx, body);
    await plain.service.create(ctx, body);
  }
  const withReference: number[] = [];
  const without: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const timeOf = async (create: () => Promise<unknown>) => {
      const started = performance.now();
      for (let index = 0; index < perRound; index += 1) await create();
      return (performance.now() - started) / perRound;
    };
    // Alternate which goes first, so neither always gets the warmer cache.
    const first = round % 2 === 0;
    const a = first ? await timeOf(() => tasks!.service.create(ctx, body)) : 0;
    const b = await timeOf(() => plain.service.create(ctx, body));
    const c = first ? a : await timeOf(() => tasks!.service.create(ctx, body));
    withReference.push(c);
    without.push(b);
    ratios.push(c / b);
  }
  const ratio = median(ratios);
  // The cascade: a project with 100 tasks, deleted in one transaction.
  const cascaded = member();
  const parent = await projects!.service.create(cascaded, { name: 'parent' });
  for (let index = 0; index < CHILDREN; index += 1) await tasks!.service.create(cascaded, { title: `t${index}`, projectId: parent.data.id });
  const started = performance.now();
  await projects!.service.delete(cascaded, parent.data.id, { expectedVersion: 1 });
  const cascadeMs = performance.now() - started;
  const left = await tasks!.service.list(cascaded, { pageSize: 1 });
  if (left.meta.total !== 0) throw new Error(`the cascade left ${left.meta.total} tasks`);
  const row = `| ${name} | ${median(without).toFixed(3)} ms | ${median(withReference).toFixed(3)} ms | ${ratio.toFixed(3)} (bound ${BOUND}) | ${cascadeMs.toFixed(1)} ms |`;
  return { row, ratio };
}

const rows: string[] = [];
let worst = 0;
const folder = mkdtempSync(join(tmpdir(), 'cellgate-references-bench-'));
try {
  if (which === 'sqlite' || which === 'both') {
    const storage = sqliteStorage({ filename: join(folder, 'bench.db') });
    const { row, ratio } = await measure('sqlite', storage);
    await storage.close();
    rows.push(row);
    worst = Math.max(worst, ratio);
  }
  if (which === 'postgres' || which === 'both') {
    let server = process.env.DATABASE_URL;
    let stop: (() => Promise<void>) | undefined;
    const bin = server === undefined ? serverBinaries() : undefined;
    if (server === undefined && bin !== undefined) {
      const cluster = await startCluster(bin);
      server = cluster.url;
      stop = () => cluster.stop();
    }
    if (server === undefined) rows.push('| postgres | skipped: no DATABASE_URL and no PostgreSQL server binaries | | | |');
    else {
      const database = await createDatabase(server);
      const storage = postgresStorage({ connectionString: database.url });
      try {
        const { row, ratio } = await measure('postgres', storage);
        rows.push(row);
        worst = Math.max(worst, ratio);
      } finally {
        await storage.close();
        await database.stop();
        await stop?.();
      }
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
console.log(`| Driver | create, no reference | create, one reference | ratio (median of ${rounds} rounds × ${perRound}) | delete cascading to ${CHILDREN} |`);
console.log('| --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
if (worst > BOUND) {
  console.error(`references bench: a create with one reference costs ${worst.toFixed(3)}× one without, over the bound ${BOUND}`);
  process.exitCode = 1;
}
