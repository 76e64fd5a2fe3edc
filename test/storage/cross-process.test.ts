/**
 * Issue 7 "Real PostgreSQL": several reference-host processes on one PostgreSQL.
 * - 4 hosts, 400 concurrent PATCHes of one record in rounds (all of a round send the same
 *   expectedVersion): one winner per round, every loser 409, versions and audit rows contiguous.
 * - `kill -9` of a host under write load, then a restart: every version of every record has
 *   exactly one audit row and one version-state row; nothing half-written.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from 'cellgate';
import { startTestPostgres } from '../support/postgres.ts';
import { driverSkip } from './drivers.ts';
import { startHostProcess, type HostProcess } from './fixtures/host-process.ts';

const filtered = driverSkip('postgres');
const server = filtered ? { ok: false as const, skip: filtered } : await startTestPostgres();
const skip = server.ok ? undefined : server.skip;

const SECRET = 'cross-process-secret-0123456789abcdef';
const TENANT = '0c0c0c0c-0000-4000-8000-000000000001';
const WORKSPACE = '0c0c0c0c-0000-4000-8000-000000000002';
const customers = `/v1/workspaces/${WORKSPACE}/customers`;

describe.skipIf(Boolean(skip))(`reference hosts sharing one PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const url = server.ok ? server.db.url : '';
  const env = { DATABASE_URL: url, CELLGATE_JWT_SECRET: SECRET };
  let hosts: HostProcess[] = [];
  let token = '';
  let db: pg.Pool;

  const call = (host: HostProcess, method: string, path: string, body?: unknown) =>
    fetch(`${host.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  async function create(host: HostProcess, name: string): Promise<string> {
    const response = await call(host, 'POST', customers, { name, email: 'c@example.com', status: 'lead' });
    expect(response.status).toBe(201);
    return ((await response.json()) as { data: { id: string } }).data.id;
  }

  /** Per record: its version, and how many audit and version-state rows each version has. */
  async function integrity(): Promise<Array<{ id: string; version: number; audits: number[]; states: number[] }>> {
    const { rows } = await db.query<{ id: string; version: number; audits: number[] | null; states: number[] | null }>(`
      SELECT c.id, c.version,
        (SELECT array_agg(resource_version ORDER BY resource_version) FROM cellgate_audit_log a WHERE a.resource_id = c.id) AS audits,
        (SELECT array_agg(version ORDER BY version) FROM cellgate_version_state v WHERE v.id = c.id) AS states
      FROM crm_customer_v1 c`);
    return rows.map((row) => ({ ...row, audits: row.audits ?? [], states: row.states ?? [] }));
  }

  beforeAll(async () => {
    db = new pg.Pool({ connectionString: url, max: 2 });
    token = await signDevToken({ secret: SECRET, tenantId: TENANT, workspaces: { [WORKSPACE]: ['admin'] }, permissions: ['audit:read'], expiresIn: '1h' });
    // Four processes start (and migrate) at once: the advisory lock keeps migrations from colliding.
    hosts = await Promise.all(Array.from({ length: 4 }, () => startHostProcess(env)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.stop()));
    await db?.end();
    if (server.ok) await server.db.stop();
  }, 60_000);

  it('serialises 400 concurrent PATCHes from 4 processes: one winner per round, losers 409, no lost update', async () => {
    const id = await create(hosts[0]!, 'Contended');
    const rounds = 20;
    const perRound = 20;
    let version = 1;
    for (let round = 0; round < rounds; round += 1) {
      const responses = await Promise.all(
        Array.from({ length: perRound }, (_, index) =>
          call(hosts[index % hosts.length]!, 'PATCH', `${customers}/${id}`, { expectedVersion: version, name: `round ${round} writer ${index}` }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(
        statuses.filter((status) => status === 200),
        `round ${round}: ${statuses.join(',')}`,
      ).toHaveLength(1);
      expect(
        statuses.filter((status) => status !== 200).every((status) => status === 409),
        statuses.join(','),
      ).toBe(true);
      await Promise.all(responses.map((response) => response.arrayBuffer()));
      version += 1;
    }
    const record = (await integrity()).find((row) => row.id === id)!;
    const expected = Array.from({ length: rounds + 1 }, (_, i) => i + 1);
    expect(record.version).toBe(rounds + 1);
    expect(record.audits).toEqual(expected);
    expect(record.states).toEqual(expected);
  }, 120_000);

  it('survives kill -9 under write load: each version has exactly one audit row and one state row', async () => {
    const victim = hosts[3]!;
    const ids = await Promise.all(Array.from({ length: 8 }, (_, index) => create(victim, `Crash ${index}`)));
    let stop = false;
    const writers = ids.map(async (id) => {
      let version = 1;
      while (!stop) {
        const response = await call(victim, 'PATCH', `${customers}/${id}`, { expectedVersion: version, name: `v${version + 1}` }).catch(() => undefined);
        if (!response) return;
        if (response.status === 200) version += 1;
        await response.arrayBuffer().catch(() => undefined);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await victim.kill();
    stop = true;
    await Promise.all(writers);
    hosts[3] = await startHostProcess(env);

    const rows = await integrity();
    for (const id of ids) {
      const record = rows.find((row) => row.id === id)!;
      const expected = Array.from({ length: record.version }, (_, i) => i + 1);
      expect(record.audits, id).toEqual(expected);
      expect(record.states, id).toEqual(expected);
    }
    expect(rows.filter((row) => ids.includes(row.id)).some((row) => row.version > 1)).toBe(true);
    // The restarted host serves the records it left behind and accepts the next write.
    const first = rows.find((row) => row.id === ids[0])!;
    const response = await call(hosts[3]!, 'PATCH', `${customers}/${first.id}`, { expectedVersion: first.version, name: 'after restart' });
    expect(response.status).toBe(200);
  }, 120_000);
});
