/**
 * Every command that touches storage or entities reads `cellgate.config.*` (docs/cli.md,
 * "Configuration file"): `erase`, `purge` and `audit export` find the entities and the storage of
 * the file in the current directory, or the one named by `--config`, as `serve` and `migrate` do;
 * a flag overrides the file. Run like a user runs the command (tsx on src/cli/index.ts) in an app
 * folder, against a real SQLite file written by the governed core.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGovernedService, type GovernedContext } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { driverSkip } from '../storage/drivers.ts';

const root = resolve(import.meta.dirname, '../..');
const TSX = resolve(root, 'node_modules/.bin/tsx');
const dir = mkdtempSync(join(tmpdir(), 'cellgate-cli-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The demo customer entity, as an app's own file: the command must find it through the configuration.
const CUSTOMER_FILE = join(root, 'src/host/entities/customer.entity.json');

// Without the suite's DATABASE_URL: what the configuration says is what the command uses.
const { DATABASE_URL: _suiteDatabase, ...env } = process.env;

/** Runs `cellgate <args>` from the sources with `cwd` as the current directory. */
function cellgate(cwd: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(TSX, ['--tsconfig', join(root, 'tsconfig.json'), join(root, 'src/cli/index.ts'), ...args], { cwd, env });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, out, err })));
}

describe.skipIf(Boolean(driverSkip('sqlite')))('cellgate.config is read by erase, purge and audit export', () => {
  const app = join(dir, 'app');
  const database = join(app, 'club.db');
  const config = join(app, 'cellgate.config.mjs');
  const tenantId = crypto.randomUUID();
  const workspaceId = crypto.randomUUID();
  let id = '';

  beforeAll(async () => {
    mkdirSync(join(app, 'entities'), { recursive: true });
    copyFileSync(CUSTOMER_FILE, join(app, 'entities/client.entity.json'));
    writeFileSync(config, `export default { entities: ['./entities/client.entity.json'], storage: ${JSON.stringify(`sqlite:${database}`)} };\n`);
    const storage = sqliteStorage({ filename: database });
    const service = createGovernedService({ entity: JSON.parse(readFileSync(CUSTOMER_FILE, 'utf8')), storage });
    await storage.migrate([service.model]);
    const ctx: GovernedContext = {
      actor: { id: 'u1', type: 'user', tenantId, roles: [], workspaces: { [workspaceId]: ['admin'] }, permissions: ['audit:read'] },
      scope: { workspaceId },
    };
    const created = await service.create(ctx, { name: 'Ada', email: 'ada@example.com', status: 'active' });
    await service.update(ctx, created.data.id, { expectedVersion: 1, name: 'Ada L.' });
    id = created.data.id;
    await storage.close();
  });

  it('audit export reads the storage of the file in the current directory', async () => {
    const run = await cellgate(app, ['audit', 'export', '--from', '2000-01-01T00:00:00Z', '--to', '2100-01-01T00:00:00Z', '--tenant', tenantId]);
    expect(run.err).toContain(`using ${config}`);
    expect(run.code).toBe(0);
    const records = run.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { resourceId: string; eventType: string });
    expect(records.map((record) => [record.resourceId, record.eventType])).toEqual([
      [id, 'entity.created'],
      [id, 'entity.updated'],
    ]);
  });

  it('purge applies the policy to the entities and storage of the file', async () => {
    const run = await cellgate(app, ['purge', '--retention-days', '0.0000001', '--dry-run']);
    expect(run.err).toContain(`using ${config}`);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`dry run on sqlite ${database}`);
    expect(run.out).toContain(`tenant ${tenantId}: would remove before`);
  });

  it('erase finds the entity and the storage in the file named by --config; a flag overrides the file', async () => {
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const base = ['erase', '--config', config, '--resource', 'customers', '--id', id, '--tenant', tenantId, '--reason', 'request #1'];
    // --database-url wins over the file's storage: an empty in-process store has no such record.
    const overridden = await cellgate(elsewhere, [...base, '--database-url', 'memory:']);
    expect(overridden).toMatchObject({ code: 1, err: expect.stringContaining(`no customers record ${id}`) });
    const erased = await cellgate(elsewhere, base);
    expect(erased.err).toContain(`using ${config}`);
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.out)).toMatchObject({ erased: expect.arrayContaining(['email']), id, version: 3 });
  });
});
