/**
 * Database faults under load: two reference-host processes on a PostgreSQL cluster this file
 * starts itself (so it can stop it: never the shared server), with concurrent writes running
 * through `pg_ctl stop -m fast`, `-m immediate` and `pg_terminate_backend` of every connection.
 * The hosts must stay up; every answer during the fault is 2xx, 409 or 503 with `Retry-After`
 * (never a reset, never a 500); the first success comes within seconds of the database being
 * back; afterwards every version has exactly one audit row and one version-state row.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverBinaries, startCluster, type TestCluster } from '../support/postgres.ts';
import { startHostProcess, type HostProcess } from '../storage/fixtures/host-process.ts';
import { adminToken, createCustomer, expectContiguousHistories, expectOnlyAllowedAnswers, pause, SECRET, writeLoad } from './support.ts';

const bin = serverBinaries();
// reason: the fault tests stop and start a cluster of their own; without server binaries there is none to stop.
const skip = bin ? undefined : 'no PostgreSQL server binaries under /usr/lib/postgresql to start a throwaway cluster';

/** How soon after the database is back the first request must succeed. */
const RECOVERY_BOUND_MS = 5000;

describe.skipIf(Boolean(skip))(`hosts through PostgreSQL faults${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let cluster: TestCluster;
  let hosts: HostProcess[] = [];
  let token = '';
  let ids: string[] = [];

  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    cluster = await startCluster(bin!);
    token = await adminToken();
    // The shared rate-limit store is on the database too, so it is part of the fault.
    const env = { DATABASE_URL: cluster.url, CELLGATE_JWT_SECRET: SECRET, CELLGATE_RATE_LIMIT: '1000000' };
    hosts = await Promise.all([startHostProcess(env), startHostProcess(env)]);
    ids = await Promise.all(Array.from({ length: 12 }, (_, index) => createCustomer(hosts[index % 2]!, token, `Fault ${index}`)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.stop()));
    await cluster?.stop();
  }, 60_000);

  /**
   * Runs the load, applies `fault` (which resolves when the database is back), keeps the load
   * going until a success after that, and checks everything the issue asks for.
   */
  async function survive(fault: () => Promise<void>) {
    const load = writeLoad(hosts, token, ids);
    await pause(700);
    const faultAt = Date.now();
    await fault();
    const backAt = Date.now();
    let firstSuccess: number | undefined;
    for (let waited = 0; waited < RECOVERY_BOUND_MS + 5000 && firstSuccess === undefined; waited += 50) {
      firstSuccess = load.seen.find((answer) => answer.at >= backAt && (answer.status === 200 || answer.status === 201))?.at;
      await pause(50);
    }
    await pause(500);
    await load.stop();

    for (const host of hosts) expect(host.child.exitCode, `a host process ended: ${host.stderr()}`).toBeNull();
    expectOnlyAllowedAnswers(load.seen);
    const during = load.seen.filter((answer) => answer.at >= faultAt && answer.at <= backAt + 200);
    expect(during.length, 'requests were running during the fault').toBeGreaterThan(0);
    expect(firstSuccess, 'a request succeeded after the database came back').toBeDefined();
    expect(firstSuccess! - backAt).toBeLessThan(RECOVERY_BOUND_MS);
    for (const host of hosts) expect((await fetch(`${host.url}/health`)).status).toBe(200);
    await expectContiguousHistories(query);
    return { during, seen: load.seen };
  }

  it('keeps serving through pg_ctl stop/start -m fast', async () => {
    const { during } = await survive(async () => {
      await cluster.halt('fast');
      await pause(1000);
      await cluster.resume();
    });
    expect(
      during.some((answer) => answer.status === 503),
      'the outage was visible as 503',
    ).toBe(true);
  }, 60_000);

  it('keeps serving through pg_ctl stop/start -m immediate (crash and recovery)', async () => {
    await survive(async () => {
      await cluster.halt('immediate');
      await pause(1000);
      await cluster.resume();
    });
  }, 60_000);

  it('keeps serving when pg_terminate_backend ends every connection of the hosts', async () => {
    await survive(async () => {
      for (let round = 0; round < 3; round += 1) {
        await query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`);
        await pause(150);
      }
    });
  }, 60_000);
});
