/**
 * `cellgate audit export`, run from source like a user runs the command (tsx on src/cli/index.ts),
 * against a real SQLite file written by the governed core: NDJSON on stdout equal to the storage
 * export, nothing on stderr when it is not a terminal, filters, and exit 2 for bad arguments.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGovernedService, type AuditRecord } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { driverSkip } from '../storage/drivers.ts';

const root = resolve(import.meta.dirname, '../..');
const TSX = resolve(root, 'node_modules/.bin/tsx');
const dir = mkdtempSync(join(tmpdir(), 'cellgate-audit-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cellgate(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(TSX, ['src/cli/index.ts', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: '' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, out, err })));
}

const lines = (text: string): AuditRecord[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);

describe.skipIf(Boolean(driverSkip('sqlite')))('cellgate audit export (SQLite file)', () => {
  const file = join(dir, 'app.db');
  const tenantId = crypto.randomUUID();
  const workspaceId = crypto.randomUUID();
  const stored: AuditRecord[] = [];
  beforeAll(async () => {
    const storage = sqliteStorage({ filename: file });
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    const ctx = {
      actor: { id: crypto.randomUUID(), type: 'user' as const, tenantId, roles: ['admin'], workspaces: {}, permissions: ['audit:read'] },
      scope: { workspaceId },
    };
    for (let index = 0; index < 30; index += 1) {
      const created = await service.create(ctx, { title: `o${index}`, amount: index, cardToken: 'tok_CARD_secret' });
      if (index % 3 === 0) await service.update(ctx, created.data.id, { expectedVersion: 1, amount: index + 1 });
    }
    for await (const record of storage.exportAudit({ tenantId, from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' })) stored.push(record);
    await storage.close();
  });

  it('writes every record of the range to stdout as NDJSON, oldest first, with no progress line off a terminal', async () => {
    const run = await cellgate([
      'audit',
      'export',
      '--from',
      '2000-01-01',
      '--to',
      '2100-01-01T00:00:00Z',
      '--tenant',
      tenantId,
      '--database-url',
      `sqlite:${file}`,
    ]);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(stored).toHaveLength(40);
    expect(lines(run.out)).toEqual(stored);
    expect(run.out).not.toContain('tok_CARD_secret');
    const middle = stored[10]!.occurredAt;
    const narrowed = await cellgate([
      'audit',
      'export',
      '--from',
      middle,
      '--to',
      '2100-01-01T00:00:00Z',
      '--tenant',
      tenantId,
      '--resource-type',
      'shop.Order@v1',
      '--database-url',
      `sqlite:${file}`,
    ]);
    expect(lines(narrowed.out)).toEqual(stored.filter((record) => record.occurredAt >= middle));
    const other = await cellgate([
      'audit',
      'export',
      '--from',
      '2000-01-01',
      '--to',
      '2100-01-01',
      '--tenant',
      tenantId,
      '--resource-type',
      'x.Other@v1',
      '--database-url',
      `sqlite:${file}`,
    ]);
    expect({ code: other.code, out: other.out }).toEqual({ code: 0, out: '' });
  }, 120_000);

  it('exits 2 with one line for a missing or bad range, tenant or subcommand', async () => {
    const cases = [
      [['audit', 'export', '--to', '2026-01-01'], '--from'],
      [['audit', 'export', '--from', 'soon', '--to', '2026-01-01'], '--from'],
      [['audit', 'export', '--from', '2026-02-01', '--to', '2026-01-01'], '--to'],
      [['audit', 'export', '--from', '2026-01-01', '--to', '2026-02-01', '--tenant', 'acme'], '--tenant'],
      [['audit', 'import'], 'unknown subcommand'],
    ] as const;
    const runs = await Promise.all(cases.map(([args]) => cellgate([...args])));
    runs.forEach((run, index) => {
      expect(run.code).toBe(2);
      expect(run.err.trim().split('\n')).toEqual([expect.stringContaining(cases[index]![1])]);
    });
    const help = await cellgate(['audit', 'export', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: cellgate audit export');
  }, 120_000);
});
