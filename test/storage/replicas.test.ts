/**
 * Read replicas with read-your-writes (issue #32, B37) on real servers: a PostgreSQL primary and a
 * streaming replica made with `pg_basebackup -R`, the governed API over HTTP on 127.0.0.1 with
 * `postgresStorage({ replicas })`. A create answers with `Cellgate-Consistency`; a GET sending it
 * back is never stale, while GETs without it sometimes are (so the replica really serves reads).
 * The replica paused (lagging) or stopped (down) never fails a read while the primary is up.
 * Skipped with the reason where the PostgreSQL server binaries are missing.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorageFromUrl } from 'cellgate/host';
import { postgresStorage } from 'cellgate/storage/postgres';
import { governedSetup } from '../governed/behaviour.ts';
import { customer, expectError, paths, send, serve } from '../governed/support.ts';
import { serverBinaries, startCluster, startReplica, type TestCluster } from '../support/postgres.ts';

const bin = serverBinaries();
const skip = bin ? undefined : 'no PostgreSQL server binaries under /usr/lib/postgresql (a replica needs a cluster of our own)';
if (skip) console.warn(`replica tests skipped: ${skip}`);

const HEADER = 'Cellgate-Consistency';

async function onReplica(replica: TestCluster, statement: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: replica.url });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Whether the replica has run a read of the customers table: the last statement of a backend still
 * connected to it (the replica pool's). The pool's health checks name no table, so only a read
 * routed to the replica makes this true.
 */
async function replicaReadCustomers(replica: TestCluster): Promise<boolean> {
  const [activity] = await onReplica(
    replica,
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND query ILIKE '%customer%'",
  );
  return Number(activity!.n) > 0;
}

describe.skipIf(Boolean(skip))(`read replicas with read-your-writes${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let primary: TestCluster;
  let replica: TestCluster;
  let url: string;
  let token: string;
  let close: () => Promise<void>;
  let closeStorage: () => Promise<void>;

  beforeAll(async () => {
    // Commits flushed at once, as in production: the replica receives each at commit.
    primary = await startCluster(bin!, '-c synchronous_commit=on');
    replica = await startReplica(bin!, primary.url);
    const s = await governedSetup(() => postgresStorage({ connectionString: primary.url, replicas: [replica.url], maxLagMs: 300, replicaWaitMs: 100 }));
    token = s.tokens.admin;
    const server = await serve(s.api);
    url = server.url;
    close = server.close;
    closeStorage = () => s.storage.close();
  }, 120_000);

  afterAll(async () => {
    await close?.();
    await closeStorage?.();
    await replica?.stop();
    await primary?.stop();
  }, 120_000);

  /** Creates a customer, then reads it back (with the write's token when `withToken`); true when the read was stale. */
  async function stalePair(withToken: boolean): Promise<boolean> {
    const created = await send(url, 'POST', paths.customers(), { token, body: customer() });
    expect(created.status, created.text).toBe(201);
    const consistency = created.headers.get(HEADER);
    expect(consistency).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    const read = await send(url, 'GET', `${paths.customers()}/${created.body.data.id}`, { token, headers: withToken ? { [HEADER]: consistency! } : {} });
    expect([200, 404]).toContain(read.status);
    return read.status === 404;
  }

  it('1,000 write-then-read pairs sending the token back: 0 stale; without it some are stale (the replica serves reads)', async () => {
    let staleWithToken = 0;
    for (let i = 0; i < 1000; i++) if (await stalePair(true)) staleWithToken++;
    expect(staleWithToken).toBe(0);
    // Without the token a read may be served by the replica: seen either as a stale read (the
    // replica had not replayed the write yet) or, on a quiet machine where it always had, as a
    // read of the table in the replica's own list of what its connections last ran.
    let staleWithout = 0;
    for (let i = 0; i < 300; i++) if (await stalePair(false)) staleWithout++;
    expect(staleWithout > 0 || (await replicaReadCustomers(replica))).toBe(true);
  }, 300_000);

  it('a list sent the token sees the record just created', async () => {
    for (let i = 0; i < 50; i++) {
      const name = `List ${i} ${crypto.randomUUID()}`;
      const created = await send(url, 'POST', paths.customers(), { token, body: customer({ name }) });
      const list = await send(url, 'GET', `${paths.customers()}?name[startsWith]=${encodeURIComponent(name)}`, {
        token,
        headers: { [HEADER]: created.headers.get(HEADER)! },
      });
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.map((record: { id: string }) => record.id)).toContain(created.body.data.id);
    }
  }, 120_000);

  it('the reference host takes its replicas from DATABASE_READ_URLS (comma-separated), for a postgres DATABASE_URL only', async () => {
    const opened = await createStorageFromUrl(primary.url, ` ${replica.url}, `);
    try {
      expect(opened.label).toMatch(/^postgres .* \+ 1 read replica$/);
      expect(opened.storage.consistency).toBeDefined();
    } finally {
      await opened.storage.close();
    }
    const single = await createStorageFromUrl(primary.url, '');
    expect(single.storage.consistency).toBeUndefined();
    await single.storage.close();
    await expect(createStorageFromUrl('memory:', replica.url)).rejects.toMatchObject({ path: 'DATABASE_READ_URLS' });
  });

  it('a malformed token is a 400 in the error envelope, not a stale read', async () => {
    for (const bad of ['yesterday', '0/'.padEnd(40, 'F'), "1/2'; --"]) {
      expectError(await send(url, 'GET', paths.customers(), { token, headers: { [HEADER]: bad } }), 400, 'BAD_REQUEST');
    }
  });

  it('a lagging replica (replay paused) is left out: reads with or without a token are fresh', async () => {
    await onReplica(replica, 'SELECT pg_wal_replay_pause()');
    try {
      // Past maxLagMs the replica leaves the rotation; until then a token read waits, then takes the primary.
      for (let i = 0; i < 20; i++) expect(await stalePair(true)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 700));
      for (let i = 0; i < 50; i++) expect(await stalePair(false)).toBe(false);
    } finally {
      await onReplica(replica, 'SELECT pg_wal_replay_resume()');
    }
  }, 120_000);

  it('a replica down never fails a read while the primary is up, and rejoins once back', async () => {
    await replica.halt('immediate');
    try {
      for (let i = 0; i < 30; i++) expect(await stalePair(i % 2 === 0)).toBe(false);
    } finally {
      await replica.resume();
    }
    // Back in rotation after its retry delay: reads without a token are sometimes stale again.
    await expect
      .poll(
        async () => {
          let stale = 0;
          for (let i = 0; i < 30; i++) if (await stalePair(false)) stale++;
          return stale;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBeGreaterThan(0);
  }, 120_000);
});
