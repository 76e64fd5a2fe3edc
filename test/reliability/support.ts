/**
 * Shared parts of the reliability tests: a token, calls to a host process, a write load that
 * records every answer, and the history invariants read straight from the database.
 */
import { expect } from 'vitest';
import { signDevToken } from 'cellgate';
import type { HostProcess } from '../storage/fixtures/host-process.ts';

/** The token secret every host of these tests is started with. */
export const SECRET = 'reliability-secret-0123456789abcdef';
export const TENANT = '0d0d0d0d-0000-4000-8000-000000000001';
export const WORKSPACE = '0d0d0d0d-0000-4000-8000-000000000002';
/** The customers collection of the demo resources. */
export const customers = `/v1/workspaces/${WORKSPACE}/customers`;

/** A tenant-wide admin token (one actor) for {@link TENANT}. */
export function adminToken(sub = '0d0d0d0d-0000-4000-8000-000000000009'): Promise<string> {
  return signDevToken({ secret: SECRET, tenantId: TENANT, sub, workspaces: { [WORKSPACE]: ['admin'] }, permissions: ['audit:read'], expiresIn: '1h' });
}

/** One request to a host; the body is read, so the connection is free again. */
export async function call(host: HostProcess, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

/** Creates a customer and returns its id. */
export async function createCustomer(host: HostProcess, token: string, name: string): Promise<string> {
  const created = await call(host, token, 'POST', customers, { name, email: 'c@example.com', status: 'lead' });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return (created.json!.data as { id: string }).id;
}

/** One answer seen by the load: when, what, and (for a failed fetch) why. */
export interface Seen {
  at: number;
  status: number | 'reset';
  retryAfter: string | null;
  error?: string;
}

/**
 * Concurrent PATCHes (one writer per record, each sending the version it last saw and re-reading
 * after a 409 or 503) plus creates, spread over `hosts`, until `stop()`. Every answer is recorded.
 */
export function writeLoad(hosts: HostProcess[], token: string, ids: string[]) {
  const seen: Seen[] = [];
  let running = true;
  const record = async (request: () => Promise<{ status: number; retryAfter: string | null; json?: Record<string, unknown> }>) => {
    try {
      const answer = await request();
      seen.push({ at: Date.now(), status: answer.status, retryAfter: answer.retryAfter });
      return answer;
    } catch (error) {
      seen.push({ at: Date.now(), status: 'reset', retryAfter: null, error: String((error as Error).cause ?? error) });
      return undefined;
    }
  };
  const writers = ids.map(async (id, index) => {
    const host = hosts[index % hosts.length]!;
    let version: number | undefined;
    let round = 0;
    while (running) {
      round += 1;
      if (version === undefined) {
        const read = await record(() => call(host, token, 'GET', `${customers}/${id}`));
        if (read?.status === 200) version = (read.json!.data as { version: number }).version;
        else await pause(20);
        continue;
      }
      if (round % 5 === 0) {
        await record(() => call(host, token, 'POST', customers, { name: `load ${index}-${round}`, email: 'l@example.com', status: 'lead' }));
        continue;
      }
      const written = await record(() => call(host, token, 'PATCH', `${customers}/${id}`, { expectedVersion: version, name: `w${index} r${round}` }));
      if (written?.status === 200) version = (written.json!.data as { version: number }).version;
      else {
        version = undefined;
        await pause(20);
      }
    }
  });
  return {
    seen,
    async stop() {
      running = false;
      await Promise.all(writers);
    },
  };
}

/** Waits `ms`. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Checks the answers of a load: each one a 2xx, a 409, or a 503 carrying `Retry-After`; never a
 * reset, never a 500.
 */
export function expectOnlyAllowedAnswers(seen: Seen[]): void {
  const bad = seen.filter(
    (answer) => !(answer.status === 200 || answer.status === 201 || answer.status === 409 || (answer.status === 503 && answer.retryAfter !== null)),
  );
  expect(bad.slice(0, 5), `${bad.length} of ${seen.length} answers outside 2xx/409/503+Retry-After`).toEqual([]);
}

/** Per customer: its version, and the versions its audit rows and version-state rows carry. */
export async function histories(query: (text: string) => Promise<{ rows: unknown[] }>) {
  const { rows } = await query(`
    SELECT c.id, c.version,
      (SELECT array_agg(resource_version ORDER BY resource_version) FROM cellgate_audit_log a WHERE a.resource_id = c.id) AS audits,
      (SELECT array_agg(version ORDER BY version) FROM cellgate_version_state v WHERE v.id = c.id) AS states
    FROM crm_customer_v1 c`);
  return (rows as Array<{ id: string; version: number; audits: number[] | null; states: number[] | null }>).map((row) => ({
    ...row,
    audits: row.audits ?? [],
    states: row.states ?? [],
  }));
}

/** Versions 1..n each with exactly one audit row and one version-state row, for every customer. */
export async function expectContiguousHistories(query: (text: string) => Promise<{ rows: unknown[] }>): Promise<void> {
  const rows = await histories(query);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    const expected = Array.from({ length: row.version }, (_, i) => i + 1);
    expect(row.audits, `audit versions of ${row.id}`).toEqual(expected);
    expect(row.states, `state versions of ${row.id}`).toEqual(expected);
  }
}
