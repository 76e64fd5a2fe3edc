/**
 * Every usage error of the `cellgate` command exits 2 with one line naming the flag (docs/cli.md):
 * the numeric flags of every command are checked for range, `1e9`, negatives and `NaN` before
 * anything runs. `purge --retention-days 1e9` used to reach date arithmetic and exit 1 with a raw
 * "Invalid time value"; `serve --port 1e9` exited 1 from the host; `token --expires` signed any
 * lifetime, even one past the representable dates. Plus the library bound behind the purge flags.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, createGovernedService } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { run as purge } from '../../src/cli/commands/purge.ts';
import { run as serve } from '../../src/cli/commands/serve.ts';
import { run as token } from '../../src/cli/commands/token.ts';
import { loadDemoEntity } from '../../src/host/demo.ts';
import { MAX_LIFECYCLE_DAYS } from '../../src/limits.ts';
import { driverSkip } from '../storage/drivers.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-cli-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const customer = loadDemoEntity('customer.entity.json');

/** Runs a command in-process, capturing what it prints. */
async function cli(command: (args: string[]) => Promise<number>, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void out.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void err.push(parts.join(' ')));
  const code = await command(args);
  vi.restoreAllMocks();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A usage error: exit 2, one line on stderr naming `flag`, nothing on stdout. */
function expectUsageError(result: { code: number; out: string; err: string }, command: string, flag: string): void {
  expect(result.code).toBe(2);
  expect(result.out).toBe('');
  expect(result.err).not.toContain('\n');
  expect(result.err).toMatch(new RegExp(`^cellgate ${command}: .*${flag.replace(/[-[\]]/g, '\\$&')}`));
  expect(result.err).not.toMatch(/Invalid time value|TypeError|RangeError/);
}

describe.skipIf(Boolean(driverSkip('sqlite')))('cellgate purge: day flags', () => {
  const file = join(dir, 'history.db');
  const base = ['--database-url', `sqlite:${file}`, '--entity', join(process.cwd(), 'src/host/entities/customer.entity.json')];

  beforeAll(async () => {
    // A tenant with history, so a period that passes the flag check would reach the cut-off date.
    const storage = sqliteStorage({ filename: file });
    const service = createGovernedService({ entity: customer as never, storage });
    await storage.migrate([service.model]);
    const actor = { id: crypto.randomUUID(), type: 'user' as const, tenantId: crypto.randomUUID(), roles: ['admin'], workspaces: {}, permissions: [] };
    await service.create({ actor, scope: { workspaceId: crypto.randomUUID() } }, { name: 'Kept', email: 'kept@example.com', status: 'active' });
    await storage.close();
  });

  it.each([
    ['--retention-days', '1e9'],
    ['--retention-days', String(MAX_LIFECYCLE_DAYS + 1)],
    ['--retention-days', 'NaN'],
    ['--retention-days', 'abc'],
    ['--retention-days', ''],
    ['--deleted-after-days', '1e9'],
    ['--deleted-after-days', 'Infinity'],
  ])('%s %s exits 2 with one line', async (flag, value) => {
    expectUsageError(await cli(purge, [...base, flag, value]), 'purge', flag);
  });

  it('a negative value, given as --flag=-1 or --flag -1, exits 2 with one line', async () => {
    expectUsageError(await cli(purge, [...base, '--retention-days=-1']), 'purge', '--retention-days');
    // parseArgs refuses a value starting with a dash in three lines: the command prints one.
    expectUsageError(await cli(purge, [...base, '--deleted-after-days', '-1']), 'purge', '--deleted-after-days');
  });

  it('a bad CELLGATE_AUDIT_RETENTION_DAYS is named as such; the largest period runs', async () => {
    vi.stubEnv('CELLGATE_AUDIT_RETENTION_DAYS', '1e9');
    expectUsageError(await cli(purge, base), 'purge', 'CELLGATE_AUDIT_RETENTION_DAYS');
    vi.unstubAllEnvs();
    const longest = await cli(purge, [...base, '--retention-days', String(MAX_LIFECYCLE_DAYS), '--deleted-after-days', String(MAX_LIFECYCLE_DAYS)]);
    expect(longest.err).toBe('');
    expect(longest.code).toBe(0);
    expect(longest.out).toMatch(/removed before \d{4}-/);
  });
});

describe('cellgate serve: --port', () => {
  it.each(['1e9', '65536', 'abc', 'NaN', '1.5', '=-1'])('--port %s exits 2 with one line, before anything starts', async (value) => {
    const args = value.startsWith('=') ? [`--port${value}`] : ['--port', value];
    expectUsageError(await cli(serve, [...args, '--database-url', 'memory:']), 'serve', '--port');
  });

  it('a bad PORT in the environment is a usage error too', async () => {
    vi.stubEnv('PORT', '99999');
    expectUsageError(await cli(serve, ['--database-url', 'memory:']), 'serve', 'PORT');
  });
});

describe('cellgate token: --expires', () => {
  const tenant = ['--tenant', '00000000-0000-4000-8000-000000000001'];

  it.each(['99999999999999999999d', '367d', '53w', '0s', '-1h', '1e9s', '1.5h'])('--expires %s exits 2 with one line', async (value) => {
    vi.stubEnv('CELLGATE_JWT_SECRET', 'x'.repeat(40));
    expectUsageError(await cli(token, [...tenant, `--expires=${value}`]), 'token', '--expires');
  });

  it('--expires 366d signs a token that expires in 366 days', async () => {
    vi.stubEnv('CELLGATE_JWT_SECRET', 'x'.repeat(40));
    const before = Math.floor(Date.now() / 1000);
    const signed = await cli(token, [...tenant, '--expires', '366d']);
    expect(signed.code).toBe(0);
    const claims = JSON.parse(Buffer.from(signed.out.split('.')[1]!, 'base64url').toString()) as { exp: number; iat: number };
    expect(claims.exp - claims.iat).toBe(366 * 86_400);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
  });
});

describe('lifecycle periods in code', () => {
  it.each([
    [{ audit: { retentionDays: 1e9 } }, 'audit.retentionDays'],
    [{ purgeDeletedAfterDays: MAX_LIFECYCLE_DAYS + 1 }, 'purgeDeletedAfterDays'],
  ])('a period past MAX_LIFECYCLE_DAYS is a ConfigurationError at construction (%o)', (options, path) => {
    const build = () => createGovernedService({ entity: customer as never, storage: sqliteStorage({ filename: ':memory:' }), ...options });
    expect(build).toThrow(ConfigurationError);
    expect(build).toThrow(new RegExp(`^${path.replace('.', '\\.')}`));
  });
});
