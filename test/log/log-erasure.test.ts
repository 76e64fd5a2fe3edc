/**
 * Erasure and retention keep the verifiable log valid (issue #31), on memory, a SQLite file and
 * PostgreSQL: after an erasure every checkpoint taken before it still verifies, the erased values'
 * salts are gone (their openings hold commitments), and a scan of every table finds neither an
 * erased value nor an unsalted SHA-256 of it; after retention removed the oldest audit records,
 * the old checkpoints and a consistency proof from them still verify.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createCheckpoints,
  createGovernedService,
  defineEntity,
  eraseRecord,
  generateNoteKey,
  noteSigner,
  verifyLog,
  memoryStorage,
  type StorageDriver,
} from 'cellgate';
import { parseCheckpoint, parseNote } from '../../src/governed/log/note.ts';
import { consistencyProofOf } from '../../src/governed/log/proofs.ts';
import { verifyConsistency } from '../../src/storage/merkle/tree.ts';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { workspaceAdminContext } from '../../src/testing/storage-conformance-fixtures.ts';
import { driverSkip } from '../storage/drivers.ts';
import { startTestPostgres } from '../support/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-log-erasure-'));
const pgSkip = driverSkip('postgres');
const postgres = pgSkip ? { ok: false as const, skip: pgSkip } : await startTestPostgres();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (postgres.ok) await postgres.db.stop();
});

const Member = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Member',
  key: 'log_erasure.member',
  version: '1.0.0',
  description: 'A member whose name is erased on request',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { name: { type: 'string' }, city: { type: 'string', optional: true } },
});

/** Every row of every table, as text. */
type Dump = () => Promise<string>;

const sqliteFile = join(dir, 'erasure.db');
const drivers: Array<{ name: string; skip: string | undefined; create: () => StorageDriver; dump?: Dump }> = [
  { name: 'memory', skip: driverSkip('memory'), create: () => memoryStorage() },
  {
    name: 'sqlite',
    skip: driverSkip('sqlite'),
    create: () => sqliteStorage({ filename: sqliteFile }),
    dump: async () => {
      const raw = new Database(sqliteFile, { readonly: true });
      try {
        const tables = raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>;
        return tables.map((table) => JSON.stringify(raw.prepare(`SELECT * FROM "${table.name}"`).all())).join('\n');
      } finally {
        raw.close();
      }
    },
  },
  {
    name: 'postgres',
    skip: postgres.ok ? undefined : postgres.skip,
    create: () => postgresStorage({ connectionString: postgres.ok ? postgres.db.url : '' }),
    dump: async () => {
      const client = new pg.Client({ connectionString: postgres.ok ? postgres.db.url : '' });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`);
        const parts: string[] = [];
        for (const { table_name } of rows) parts.push(JSON.stringify((await client.query(`SELECT * FROM "${table_name}"`)).rows));
        return parts.join('\n');
      } finally {
        await client.end();
      }
    },
  },
];

/** The value, and the unsalted hashes a leak could leave of it (of the text and of its JSON). */
function canaries(value: string): string[] {
  return [value, JSON.stringify(value)].flatMap((text) => {
    const digest = createHash('sha256').update(text).digest();
    return [text === value ? value : '', digest.toString('hex'), digest.toString('base64')].filter(Boolean);
  });
}

for (const driver of drivers) {
  describe.skipIf(Boolean(driver.skip))(`verifiable log, erasure and retention on ${driver.name}${driver.skip ? ` (skipped: ${driver.skip})` : ''}`, () => {
    it('keeps every earlier checkpoint valid through an erasure and a retention run, with nothing of the erased values left', async () => {
      const storage = driver.create();
      const service = createGovernedService({ entity: Member, storage, audit: { storeSnapshots: true } });
      await storage.migrate([service.model]);
      const { signerKey, verifierKey } = await generateNoteKey('erasure.test');
      const checkpoints = createCheckpoints(storage, { signer: await noteSigner(signerKey), origin: 'erasure.test' });
      const ctx = workspaceAdminContext(['log_erasure.members.read'], { requestId: 'r', traceId: null, ip: null, userAgent: null });
      const tenantId = ctx.actor.tenantId;
      const tag = crypto.randomUUID().slice(0, 8);
      const names = [`Canary-A-${tag}`, `Canary-B-${tag}`, `Canary-C-${tag}`];
      try {
        const other = await service.create(ctx, { name: `Kept-${tag}`, city: 'Lyon' });
        const created = await service.create(ctx, { name: names[0]!, city: 'Oslo' });
        await service.update(ctx, created.data.id, { expectedVersion: 1, name: names[1]! });
        await service.update(ctx, created.data.id, { expectedVersion: 2, name: names[2]!, city: 'Rome' });
        const before = await checkpoints.checkpoint(tenantId);
        const log = storage.log!;
        if (driver.dump) for (const name of names) expect(await driver.dump()).toContain(name);

        await eraseRecord(service, ctx, created.data.id, { fields: ['name'], reason: 'data subject request' });
        const after = await checkpoints.checkpoint(tenantId);
        expect(after.size).toBe(before.size + 1);
        expect(await verifyLog({ log, tenantId, checkpoints: [before.note, after.note], verifierKeys: [verifierKey] })).toMatchObject({ status: 'verified' });
        // The erased places hold commitments, never their salts.
        const leaves = await log.leaves(tenantId, 0, 100);
        const sealed = leaves.flatMap((leaf) => Object.values(leaf.openings).filter((opening) => typeof opening !== 'string'));
        expect(sealed.length).toBeGreaterThanOrEqual(5);
        const text = JSON.stringify(leaves.map((leaf) => ({ ...leaf, hash: Buffer.from(leaf.hash).toString('base64') })));
        const tables = driver.dump ? await driver.dump() : text;
        for (const name of names) for (const canary of canaries(name)) expect(tables, `${canary} survived`).not.toContain(canary);
        expect(tables).toContain(`Kept-${tag}`);

        // Retention removes the oldest audit records; their leaves and the nodes proofs need stay.
        const removed = await storage.maintenance('retention', (session) =>
          session.removeAuditBefore(tenantId, new Date(Date.now() + 60_000).toISOString(), 2),
        );
        expect(removed.count).toBe(2);
        expect((await log.leaves(tenantId, 0, 3)).map((leaf) => leaf.record === null)).toEqual([true, true, false]);
        await service.update(ctx, other.data.id, { expectedVersion: 1, city: 'Paris' });
        const latest = await checkpoints.checkpoint(tenantId);
        expect(await verifyLog({ log, tenantId, checkpoints: [before.note, latest.note], verifierKeys: [verifierKey] })).toMatchObject({ status: 'verified' });
        const [old, now] = [before.note, latest.note].map((note) => parseCheckpoint(parseNote(note)!.body)!);
        const proof = await consistencyProofOf(log, tenantId, old!.size, now!.size);
        expect(
          verifyConsistency(
            old!.size,
            now!.size,
            old!.root,
            now!.root,
            proof.hashes.map((hash) => new Uint8Array(Buffer.from(hash, 'base64'))),
          ),
        ).toBe(true);
      } finally {
        await storage.close();
      }
    });
  });
}
