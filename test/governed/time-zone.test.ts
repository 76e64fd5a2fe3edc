/**
 * Date-time filters over HTTP never depend on the process's `TZ`: a value without a zone is read
 * as UTC, on the reference host under TZ=UTC and under TZ=America/New_York alike; an impossible
 * date is a 400 naming the parameter (not rolled over to the next month).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type Host } from './processes.ts';
import { expectError, invoice, mint, paths, send, SECRET } from './support.ts';

describe.each(['UTC', 'America/New_York'])('date filters with the host under TZ=%s', (tz) => {
  let host: Host;
  let admin: string;
  beforeAll(async () => {
    host = await startHost({ CELLGATE_JWT_SECRET: SECRET, TZ: tz });
    admin = await mint({ roles: ['admin'] });
  }, 60_000);
  afterAll(async () => {
    expect(await host.stop()).toBe(0);
  });

  it('reads a zone-less filter value as UTC', async () => {
    // 03:00 UTC: after midnight UTC, before midnight in New York (05:00 UTC).
    const created = await send(host.url, 'POST', paths.invoices(), { token: admin, body: invoice({ dueDate: '2026-01-01T03:00:00Z' }) });
    expect(created.status, created.text).toBe(201);
    const found = async (query: string) => (await send(host.url, 'GET', `${paths.invoices()}?${query}`, { token: admin })).body.data.length;
    expect(await found('dueDate[after]=2026-01-01T00:00:00')).toBe(1);
    expect(await found('dueDate[after]=2026-01-01T04:00:00')).toBe(0);
    expect(await found('dueDate[after]=2026-01-01')).toBe(1);
    expect(await found('dueDate[before]=2026-01-01T03:30:00')).toBe(1);
  });

  it('refuses impossible dates with 400 naming the parameter', async () => {
    for (const value of ['2026-02-31', '2026-04-31', '2026-13-01']) {
      const answer = await send(host.url, 'GET', `${paths.invoices()}?dueDate[after]=${value}`, { token: admin });
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.details.fields.map((field: { path: string }) => field.path)).toContain('dueDate[after]');
    }
  });
});
