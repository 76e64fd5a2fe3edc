/**
 * Failover under load (issue #32, B38): a primary with a synchronous standby (`synchronous_commit
 * = on`, `synchronous_standby_names = '*'`), four governed hosts over HTTP on 127.0.0.1 writing
 * through a multi-host URL (`primary,standby?target_session_attrs=read-write`). The primary is
 * killed (`pg_ctl stop -m immediate`) and the standby promoted while the hosts take writes: every
 * write acknowledged with 201 is present exactly once afterwards (checked against the client's
 * log), the hosts reach the new primary by themselves, and meanwhile answer 503 with
 * `Retry-After`, never a 500, never a dropped connection; a change-feed follower reading through it
 * sees every acknowledged create once and no event twice. The same holds across a restart
 * (`pg_ctl stop -m immediate`, then start) of the new primary. Skipped where the server binaries are missing.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStorage } from 'cellgate/storage/postgres';
import { governedSetup } from '../governed/behaviour.ts';
import { customer, paths, send, serve } from '../governed/support.ts';
import { serverBinaries, startCluster, startReplica, type TestCluster } from '../support/postgres.ts';

const bin = serverBinaries();
const skip = bin ? undefined : 'no PostgreSQL server binaries under /usr/lib/postgresql (failover needs clusters of our own)';
if (skip) console.warn(`failover tests skipped: ${skip}`);

describe.skipIf(Boolean(skip))(`failover to a synchronous standby${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let primary: TestCluster;
  let standby: TestCluster;
  const hosts: Array<{ url: string; token: string; errors: unknown[]; close: () => Promise<void> }> = [];

  beforeAll(async () => {
    primary = await startCluster(bin!, "-c synchronous_commit=on -c synchronous_standby_names='*'");
    standby = await startReplica(bin!, primary.url, '-c synchronous_commit=on');
    const a = new URL(primary.url);
    const b = new URL(standby.url);
    const multi = `postgres://postgres@${a.host},${b.host}/postgres?target_session_attrs=read-write`;
    for (let i = 0; i < 4; i++) {
      const s = await governedSetup(() => postgresStorage({ connectionString: multi, max: 4, connectionTimeoutMs: 1000 }));
      const server = await serve(s.api);
      hosts.push({
        url: server.url,
        token: s.tokens.admin,
        errors: s.errors,
        close: async () => {
          await server.close();
          await s.storage.close();
        },
      });
    }
  }, 180_000);

  afterAll(async () => {
    for (const host of hosts) await host.close();
    await standby?.stop();
    await primary?.stop();
  }, 120_000);

  /**
   * Four hosts writing and a feed follower on host 0 while `fault` runs; then every acknowledged
   * write is checked present once on `primaryNow()`, the feed without duplicates, and no answer
   * other than 201 or 503 with Retry-After.
   */
  async function underFault(label: string, fault: () => Promise<void>, primaryNow: () => TestCluster): Promise<void> {
    const acknowledged: string[] = [];
    const acknowledgedIds: string[] = [];
    const unexpected: string[] = [];
    let unavailable = 0;
    let promoted = false;
    const afterPromotion = [0, 0, 0, 0];
    let stop = false;
    const writer = async (index: number) => {
      const host = hosts[index]!;
      for (let n = 0; !stop; n++) {
        const name = `host${index}-${n}-${crypto.randomUUID()}`;
        let answer: Awaited<ReturnType<typeof send>>;
        try {
          answer = await send(host.url, 'POST', paths.customers(), { token: host.token, body: customer({ name }) });
        } catch (error) {
          unexpected.push(`host ${index}: ${(error as Error).message}`);
          return;
        }
        if (answer.status === 201) {
          acknowledged.push(name);
          acknowledgedIds.push(answer.body.data.id);
          if (promoted) afterPromotion[index]!++;
        } else if (answer.status === 503 && answer.headers.get('retry-after') !== null) {
          unavailable++;
          await new Promise((resolve) => setTimeout(resolve, 50));
        } else unexpected.push(`host ${index}: ${answer.status} ${answer.text.slice(0, 200)}`);
      }
    };
    // A feed follower on host 0, through the whole failover: pages after its cursor, retrying a 503.
    const followed: Array<{ id: string; resourceId: string }> = [];
    let cursor = '';
    let draining = false;
    const follow = async () => {
      for (;;) {
        const page = await send(hosts[0]!.url, 'GET', `/v1/events?limit=100${cursor ? `&after=${cursor}` : ''}`, { token: hosts[0]!.token });
        if (page.status === 503) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        }
        if (page.status !== 200) throw new Error(`feed answered ${page.status}: ${page.text.slice(0, 200)}`);
        const events = page.body.data as Array<{ id: string; resourceId: string; cursor: string }>;
        followed.push(...events.map(({ id, resourceId }) => ({ id, resourceId })));
        cursor = page.body.meta.nextCursor ?? cursor;
        if (events.length === 0) {
          if (draining) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const follower = follow();
    const writers = [0, 1, 2, 3].map(writer);
    await expect.poll(() => acknowledged.length, { timeout: 30_000 }).toBeGreaterThan(100);
    await fault();
    promoted = true;
    // Every host reaches the (new) primary by itself.
    await expect.poll(() => Math.min(...afterPromotion), { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(20);
    stop = true;
    await Promise.all(writers);
    draining = true;
    await follower;
    // The feed across the fault: no event twice, and every acknowledged create in it once.
    expect(new Set(followed.map((event) => event.id)).size).toBe(followed.length);
    const created = new Map<string, number>();
    for (const event of followed) created.set(event.resourceId, (created.get(event.resourceId) ?? 0) + 1);
    expect(acknowledgedIds.filter((id) => created.get(id) !== 1)).toEqual([]);

    expect(
      hosts
        .flatMap((host) => host.errors)
        .map((error) => String((error as Error)?.stack ?? error))
        .slice(0, 3),
    ).toEqual([]);
    expect(unexpected).toEqual([]);
    const client = new pg.Client({ connectionString: primaryNow().url });
    await client.connect();
    try {
      const { rows: tables } = await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.columns WHERE column_name = 'name' AND table_name LIKE '%customer%' LIMIT 1",
      );
      const table = tables[0]!.table_name;
      const { rows } = await client.query<{ name: string; copies: string }>(
        `SELECT name, count(*) AS copies FROM "${table}" WHERE name = ANY($1) GROUP BY name`,
        [acknowledged],
      );
      const copies = new Map(rows.map((row) => [row.name, Number(row.copies)]));
      expect(acknowledged.filter((name) => copies.get(name) !== 1)).toEqual([]);
    } finally {
      await client.end();
    }
    console.info(`${label}: ${acknowledged.length} writes acknowledged, ${unavailable} answered 503 meanwhile`);
  }

  it('keeps every acknowledged write exactly once across the promotion; 503 + Retry-After meanwhile, never 500; the feed follows', async () => {
    await underFault(
      'failover',
      async () => {
        await primary.halt('immediate');
        await standby.promote();
      },
      () => standby,
    );
  }, 180_000);

  it('a feed follower and the writers resume across a restart of the (new) primary: nothing lost, nothing twice', async () => {
    await underFault(
      'restart',
      async () => {
        await standby.halt('immediate');
        await standby.resume();
      },
      () => standby,
    );
  }, 180_000);
});
