/**
 * `cellgate verify`, run from source like a user runs it (tsx on src/cli/index.ts), on a SQLite
 * file written by the governed core: exit 0 for an untouched log, 2 (naming the first bad record)
 * after the owner edits a record, 1 when it cannot run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createCheckpoints, createGovernedService, generateNoteKey, noteSigner } from 'cellgate';
import { exportLogNdjson } from '../../src/governed/log/ndjson.ts';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { driverSkip } from '../storage/drivers.ts';

const root = resolve(import.meta.dirname, '../..');
const TSX = resolve(root, 'node_modules/.bin/tsx');
const dir = mkdtempSync(join(tmpdir(), 'cellgate-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cellgate(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(TSX, ['src/cli/index.ts', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: '', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, out, err })));
}

describe.skipIf(Boolean(driverSkip('sqlite')))('cellgate verify (SQLite file)', () => {
  it('exits 0 on an untouched log, 2 naming the first bad record after an edit, 1 when it cannot run', async () => {
    const file = join(dir, 'app.db');
    const tenantId = crypto.randomUUID();
    const workspaceId = crypto.randomUUID();
    const { signerKey, verifierKey } = await generateNoteKey('verify.test');
    const storage = sqliteStorage({ filename: file });
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    const context = {
      actor: { id: crypto.randomUUID(), tenantId, type: 'user' as const, roles: ['admin'], workspaces: {}, permissions: ['audit:read'] },
      scope: { workspaceId },
    };
    for (let i = 0; i < 6; i++) await service.create(context, { title: `order ${i}`, amount: i });
    const checkpoint = await createCheckpoints(storage, { signer: await noteSigner(signerKey), origin: 'verify.test' }).checkpoint(tenantId);
    const second = (await storage.listAudit({ tenantId, limit: 10 })).records.at(-2)!;
    const exported: string[] = [];
    for await (const line of exportLogNdjson(storage.log!, tenantId)) exported.push(line);
    writeFileSync(join(dir, 'log.ndjson'), exported.join(''));
    await storage.close();
    const kept = join(dir, 'checkpoint.txt');
    writeFileSync(kept, checkpoint.note);
    const args = ['verify', '--database-url', `sqlite:${file}`, '--tenant', tenantId, '--checkpoint', kept];

    const good = await cellgate([...args, '--verifier-key', verifierKey]);
    expect(good, good.err).toMatchObject({ code: 0 });
    expect(good.out).toMatch(/^verified: 6 leaves/);
    // An NDJSON export of the log verifies with no database.
    const offline = await cellgate(['verify', '--export', join(dir, 'log.ndjson'), '--tenant', tenantId, '--checkpoint', kept, '--verifier-key', verifierKey]);
    expect(offline, offline.err).toMatchObject({ code: 0 });
    // The key may come from the environment's signing key instead.
    expect((await cellgate(args, { CELLGATE_LOG_SIGNING_KEY: signerKey })).code).toBe(0);

    const raw = new Database(file);
    raw.exec('DROP TRIGGER cellgate_audit_log_no_update');
    raw.prepare(`UPDATE cellgate_audit_log SET actor_id = 'someone-else' WHERE id = ?`).run(second.id);
    raw.close();
    const bad = await cellgate([...args, '--verifier-key', verifierKey]);
    expect(bad.code).toBe(2);
    expect(bad.out).toContain(`first bad leaf: 1, audit record ${second.id}`);

    expect((await cellgate(['verify', '--tenant', tenantId, '--checkpoint', kept])).code).toBe(1);
    expect((await cellgate([...args.slice(0, -1), join(dir, 'missing.txt'), '--verifier-key', verifierKey])).code).toBe(1);
    expect((await cellgate([...args, '--verifier-key', 'not-a-key'])).code).toBe(1);
    expect((await cellgate(['verify', '--tenant', 'nope', '--checkpoint', kept, '--verifier-key', verifierKey])).code).toBe(1);
  }, 120_000);
});
