/**
 * The verifiable log's costs (issue #31, docs/verifiable-history.md#cost), each against its floor
 * measured in the same run:
 *
 * 1. An audited PATCH through `createGovernedApi` with the log, against the same PATCH on a driver
 *    with `verifiableLog: false` (SQLite file; PostgreSQL with `synchronous_commit = on`), rounds
 *    alternating; in process, so the HTTP server's constant cost does not hide the difference.
 *    Target: ratio ≤ 1.15.
 * 2. Inclusion proofs at 1,000,000 leaves (SQLite): p50 / p95 of `inclusionProofOf`. Target p95 < 5 ms.
 * 3. `verifyLog` over N audit records (SQLite): records per second. Target: 1,000,000 in 60 s.
 *
 * Usage: npx tsx test/bench/merkle-log.ts [sqlite|postgres|both] [verify-records=1000000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { createCheckpoints, createGovernedApi, generateNoteKey, noteSigner, verifyLog, type StorageDriver } from 'cellgate';
import { inclusionProofOf } from '../../src/governed/log/proofs.ts';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { appendLeaf } from '../../src/storage/merkle/tree.ts';
import { auditFor, conformanceModels, freshScope, invoiceFields, newRecord, nextVersion } from '../../src/testing/storage-conformance-fixtures.ts';
import { createDatabase, serverBinaries, startCluster, type TestPostgres } from '../support/postgres.ts';

const [which = 'both', verifyText = '1000000'] = process.argv.slice(2);
const VERIFY_RECORDS = Number(verifyText);
const PATCHES = 1500;
const ROUNDS = 4;
const secret = 'bench-secret-bench-secret-bench-secret-00';
const tenant = '11111111-1111-4111-8111-111111111111';
const workspace = '33333333-3333-4333-8333-333333333333';
const folder = mkdtempSync(join(tmpdir(), 'cellgate-merkle-bench-'));
const task = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'work.task',
  version: '1.0.0',
  description: 'A to-do item.',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['editor'], edit: ['editor'], admin: ['admin'] },
  fields: { title: { type: 'string' }, done: { type: 'boolean', optional: true } },
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

/** An API on `storage` and a function doing one audited PATCH (merge) of one record, in process. */
async function patcher(storage: StorageDriver) {
  const api = createGovernedApi({ storage, auth: { secret }, resources: [task] });
  await api.migrate();
  const token = await new SignJWT({ tenant_id: tenant, roles: [], workspaces: { [workspace]: ['editor'] }, permissions: [] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('77777777-7777-4777-8777-777777777777')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const base = `http://bench.local/v1/workspaces/${workspace}/tasks`;
  const created = await (await api(new Request(base, { method: 'POST', headers, body: JSON.stringify({ title: 't0' }) }))).json();
  let version = created.data.version as number;
  const id = created.data.id as string;
  return async (n: number) => {
    for (let i = 0; i < n; i++) {
      const response = await api(
        new Request(`${base}/${id}`, { method: 'PATCH', headers, body: JSON.stringify({ expectedVersion: version, title: `t${version}` }) }),
      );
      if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${await response.text()}`);
      version += 1;
    }
  };
}

async function patchRatio(label: string, make: (log: boolean) => StorageDriver) {
  const withLog = make(true);
  const without = make(false);
  const [a, b] = [await patcher(withLog), await patcher(without)];
  await a(200);
  await b(200);
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    await b(PATCHES);
    const floor = (performance.now() - started) / PATCHES;
    started = performance.now();
    await a(PATCHES);
    const logged = (performance.now() - started) / PATCHES;
    ratios.push(logged / floor);
    console.log(
      `${label} round ${round + 1}: PATCH ${logged.toFixed(3)} ms with the log, ${floor.toFixed(3)} ms without: ratio ${(logged / floor).toFixed(3)}`,
    );
  }
  console.log(`${label}: median ratio ${median(ratios).toFixed(3)} (target ≤ 1.15)`);
  await withLog.close();
  await without.close();
}

/** Proof p95 at 1M leaves: nodes of synthetic leaf hashes written straight into a SQLite file. */
async function proofs() {
  const file = join(folder, 'proofs.db');
  const storage = sqliteStorage({ filename: file });
  await storage.migrate(conformanceModels);
  await storage.close();
  const size = 1_000_000;
  const raw = new Database(file);
  const insert = raw.prepare('INSERT INTO cellgate_log_nodes (tenant_id, level, idx, hash) VALUES (?, ?, ?, ?)');
  let frontier: Uint8Array[] = [];
  const seeded = performance.now();
  raw.transaction(() => {
    for (let index = 0; index < size; index++) {
      const leaf = new Uint8Array(32);
      new DataView(leaf.buffer).setUint32(0, index);
      const step = appendLeaf(index, frontier, leaf);
      frontier = step.frontier;
      for (const node of step.nodes) insert.run(tenant, node.level, node.index, Buffer.from(node.hash).toString('base64'));
    }
    raw
      .prepare('INSERT INTO cellgate_log_heads (tenant_id, size, frontier) VALUES (?, ?, ?)')
      .run(tenant, size, frontier.map((h) => Buffer.from(h).toString('base64')).join(','));
  })();
  raw.close();
  console.log(`proofs: seeded ${size} leaves in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const reader = sqliteStorage({ filename: file });
  const times: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const index = Math.floor(Math.random() * size);
    const started = performance.now();
    await inclusionProofOf(reader.log!, tenant, index, size);
    times.push(performance.now() - started);
  }
  console.log(`proofs at ${size} leaves: p50 ${percentile(times, 0.5).toFixed(3)} ms, p95 ${percentile(times, 0.95).toFixed(3)} ms (target p95 < 5 ms)`);
  await reader.close();
}

/** verifyLog over `count` real audit records and leaves (SQLite). */
async function verifyThroughput(count: number) {
  const storage = sqliteStorage({ filename: join(folder, 'verify.db') });
  await storage.migrate(conformanceModels);
  const scope = freshScope();
  let record = newRecord(scope, invoiceFields());
  const seeded = performance.now();
  for (let done = 0; done < count; ) {
    const batch = Math.min(5000, count - done);
    await storage.transaction(async (session) => {
      for (let i = 0; i < batch; i++) {
        await session.appendAudit(auditFor(record, { diff: [{ op: 'replace', path: '/customerName', value: `customer ${done + i}` }] }));
        record = nextVersion(record);
      }
    });
    done += batch;
  }
  console.log(`verify: seeded ${count} audit records with their leaves in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const { signerKey, verifierKey } = await generateNoteKey('bench.test');
  const checkpoint = await createCheckpoints(storage, { signer: await noteSigner(signerKey), origin: 'bench.test' }).checkpoint(scope.tenantId);
  const started = performance.now();
  const result = await verifyLog({ log: storage.log!, tenantId: scope.tenantId, checkpoints: [checkpoint.note], verifierKeys: [verifierKey] });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 'verified') throw new Error(`verify failed: ${JSON.stringify(result)}`);
  console.log(`verify: ${count} records in ${seconds.toFixed(1)} s, ${Math.round(count / seconds)} records/s (target: 1,000,000 in 60 s)`);
  await storage.close();
}

let cluster: (TestPostgres & { stop(): Promise<void> }) | undefined;
try {
  if (which !== 'postgres') {
    let n = 0;
    await patchRatio('sqlite', (log) => sqliteStorage({ filename: join(folder, `patch-${n++}.db`), verifiableLog: log }));
  }
  if (which !== 'sqlite') {
    let url = process.env.DATABASE_URL;
    if (!url) {
      const bin = serverBinaries();
      if (bin === undefined) throw new Error('no PostgreSQL server binaries: set DATABASE_URL');
      cluster = await startCluster(bin);
      url = cluster.url;
    }
    const dbs = [await createDatabase(url), await createDatabase(url)];
    let n = 0;
    await patchRatio('postgres (synchronous_commit=on)', (log) => postgresStorage({ connectionString: dbs[n++]!.url, verifiableLog: log }));
    for (const db of dbs) await db.stop();
  }
  if (which !== 'postgres') {
    await proofs();
    await verifyThroughput(VERIFY_RECORDS);
  }
} finally {
  await cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
}
