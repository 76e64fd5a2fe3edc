/**
 * `cellgate migrate --upgrade` killed with SIGKILL mid-way, twice, then resumed (issue #29 item 4,
 * docs/decisions/B40.md): on a SQLite file and on PostgreSQL, every v1 record ends in v2 exactly
 * once (one version, one `entity.upgraded` audit record each). The CLI runs from source in one
 * process (node --import tsx), so the kill hits the process that holds the transaction.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGovernedApi, type EntityDefinition, type StorageDriver } from '../../src/index.ts';
import { sqliteStorage } from '../../src/storage/sqlite/index.ts';
import { postgresStorage } from '../../src/storage/postgres/index.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';

const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'cellgate-upgrade-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RECORDS = 400;
const BATCH = 10;

const entitiesModule = `import { defineEntity } from ${JSON.stringify(join(root, 'src/index.ts'))};
const base = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json', name: 'Job', key: 'kill.job', description: 'A job',
  scope: 'workspace-shared', governance_tier: 'tier-2', permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
} as const;
export const JobV1 = defineEntity({ ...base, version: '1.0.0', fields: { title: { type: 'string' }, hours: { type: 'integer' } } });
export const JobV2 = defineEntity(
  { ...base, version: '2.0.0', fields: { title: { type: 'string' }, minutes: { type: 'integer' } } },
  { from: JobV1, up: (v1) => ({ title: v1.title, minutes: v1.hours * 60 }) },
);
`;

/** A folder with the entities and a configuration file naming them and `url`. */
async function project(name: string, url: string) {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'entities.ts'), entitiesModule);
  writeFileSync(
    join(folder, 'cellgate.config.ts'),
    `import { JobV1, JobV2 } from './entities.ts';\nexport default { entities: [JobV1, JobV2], storage: ${JSON.stringify(url)} };\n`,
  );
  const entities = (await import(join(folder, 'entities.ts'))) as { JobV1: EntityDefinition; JobV2: EntityDefinition };
  return { folder, entities };
}

function cellgate(folder: string, args: string[], killWhen?: () => Promise<boolean>): Promise<{ code: number | null; signal: string | null; out: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'src/cli/index.ts'), 'migrate', '--config', join(folder, 'cellgate.config.ts'), ...args],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '' },
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let watching = killWhen !== undefined;
  const watch = async () => {
    while (watching) {
      if (await killWhen!().catch(() => false)) {
        child.kill('SIGKILL');
        return;
      }
      await new Promise((wait) => setTimeout(wait, 5));
    }
  };
  void watch();
  return new Promise((done) =>
    child.once('close', (code, signal) => {
      watching = false;
      done({ code, signal, out });
    }),
  );
}

async function killTwiceThenResume(storage: StorageDriver, folder: string, entities: { JobV1: EntityDefinition; JobV2: EntityDefinition }) {
  const api = createGovernedApi({
    storage,
    auth: { secret: 'upgrade-kill-secret-0123456789abcdef' },
    resources: { 'jobs-v1': entities.JobV1, jobs: entities.JobV2 },
  });
  await api.migrate();
  const workspaceId = crypto.randomUUID();
  const tenantId = crypto.randomUUID();
  const context = {
    actor: { id: 'seed', type: 'user' as const, tenantId, roles: [], workspaces: { [workspaceId]: ['admin'] }, permissions: [] },
    scope: { workspaceId },
  };
  const ids: string[] = [];
  const v1 = api.resources['jobs-v1']!.service;
  for (let i = 0; i < RECORDS; i++) ids.push((await v1.create(context, { title: `job ${i}`, hours: i % 9 })).data.id);
  const counted = async () => {
    const page = await api.resources.jobs!.service.list(context, { pageSize: 1 });
    return page.meta.total;
  };
  let kills = 0;
  let before = 0;
  for (const threshold of [RECORDS / 4, RECORDS / 2]) {
    const killed = await cellgate(folder, ['--upgrade', 'kill.job', '--batch-size', String(BATCH)], async () => (await counted()) >= threshold);
    expect(killed.signal, killed.out).toBe('SIGKILL');
    kills++;
    const now = await counted();
    expect(now).toBeGreaterThan(before);
    expect(now).toBeLessThan(RECORDS);
    before = now;
  }
  const finished = await cellgate(folder, ['--upgrade', 'kill.job', '--batch-size', String(BATCH)]);
  expect(finished.code, finished.out).toBe(0);
  expect(finished.out).toContain('settled');
  expect(kills).toBe(2);
  expect(await counted()).toBe(RECORDS);
  const v2 = api.resources.jobs!.service;
  for (const id of ids.slice(0, 50)) expect((await v2.get(context, id)).data.version).toBe(1);
  const audit = [];
  for (let cursor: string | undefined; ; ) {
    const page = await storage.listAudit({ tenantId, resourceType: 'kill.Job@v2', limit: 100, ...(cursor ? { cursor } : {}) });
    audit.push(...page.records);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  expect(audit.every((record) => record.eventType === 'entity.upgraded')).toBe(true);
  expect(audit).toHaveLength(RECORDS);
  expect(new Set(audit.map((record) => record.resourceId)).size).toBe(RECORDS);
}

describe.skipIf(Boolean(driverSkip('sqlite')))('cellgate migrate --upgrade, killed twice (SQLite file)', () => {
  it('resumes after each SIGKILL: every v1 record in v2 exactly once', { timeout: 120_000 }, async () => {
    const file = join(dir, 'sqlite', 'app.db');
    const { folder, entities } = await project('sqlite-project', `sqlite:${file}`);
    const storage = sqliteStorage({ filename: file });
    try {
      await killTwiceThenResume(storage, folder, entities);
    } finally {
      await storage.close();
    }
  });
});

const pg = await startTestPostgres();
describe.skipIf(!pg.ok)(`cellgate migrate --upgrade, killed twice (PostgreSQL)${pg.ok ? '' : `: ${pg.skip}`}`, () => {
  afterAll(async () => {
    if (pg.ok) await pg.db.stop();
  });
  it('resumes after each SIGKILL: every v1 record in v2 exactly once', { timeout: 120_000 }, async () => {
    if (!pg.ok) return;
    const { folder, entities } = await project('postgres-project', pg.db.url);
    const storage = postgresStorage({ connectionString: pg.db.url });
    try {
      await killTwiceThenResume(storage, folder, entities);
    } finally {
      await storage.close();
    }
  });
});
