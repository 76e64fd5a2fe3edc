/**
 * cellgate through PgBouncer in transaction mode (issue #32, B38): the whole storage conformance
 * suite of `cellgate/testing` with the driver connected to PgBouncer (`pool_mode = transaction`,
 * defaults otherwise) in front of a real PostgreSQL, and the reference host starting and serving
 * through it. Skipped with the reason where PostgreSQL or the PgBouncer binary is missing.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresStorage } from 'cellgate/storage/postgres';
import { runStorageConformance } from 'cellgate/testing';
import { auditFor, conformanceModels, freshScope, newRecord } from '../../src/testing/storage-conformance-fixtures.ts';
import { driverSkip } from './drivers.ts';
import { pgbouncerSkip, startPgBouncer } from '../support/pgbouncer.ts';
import { startTestPostgres } from '../support/postgres.ts';

const missing = driverSkip('postgres') ?? pgbouncerSkip();
const server = missing ? { ok: false as const, skip: missing } : await startTestPostgres();
const skip = server.ok ? undefined : server.skip;
if (skip) console.warn(`pgbouncer tests skipped: ${skip}`);
const bouncer = server.ok ? await startPgBouncer(server.db.url) : undefined;
const url = bouncer?.url ?? '';
afterAll(async () => {
  await bouncer?.stop();
  if (server.ok) await server.db.stop();
}, 120_000);

async function direct<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server.ok ? server.db.url : '' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

runStorageConformance({
  name: 'postgres through pgbouncer (transaction mode)',
  skip,
  // Small pool: PgBouncer multiplexes it onto its own server connections.
  create: () => postgresStorage({ connectionString: url, max: 4 }),
  rawAuditRows: (_driver, tenantId) => direct(async (client) => (await client.query('SELECT * FROM cellgate_audit_log WHERE tenant_id = $1', [tenantId])).rows),
  tamperAudit: (_driver, tenantId, statement) =>
    direct((client) =>
      client.query(
        statement === 'update' ? `UPDATE cellgate_audit_log SET actor_id = 'x' WHERE tenant_id = $1` : 'DELETE FROM cellgate_audit_log WHERE tenant_id = $1',
        [tenantId],
      ),
    ),
});

describe.skipIf(Boolean(skip))(`the driver behind pgbouncer${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('connects with the default timeouts (no start-up parameter PgBouncer refuses) and applies them per transaction', async () => {
    // What the driver sent before B38: a start-up parameter PgBouncer closes the connection on.
    const refused = new pg.Client({ connectionString: url, statement_timeout: 1000 });
    await expect(refused.connect().then(() => refused.query('SELECT 1'))).rejects.toThrow(/unsupported startup parameter/);
    await refused.end().catch(() => undefined);

    const driver = postgresStorage({ connectionString: url, lockTimeoutMs: 200 });
    await driver.migrate(conformanceModels);
    const holder = new pg.Client({ connectionString: server.ok ? server.db.url : '' });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE cellgate_audit_log IN ACCESS EXCLUSIVE MODE');
      // The lock timeout set with SET LOCAL inside the transaction ends the wait: a 503, not a hang.
      const write = driver.transaction((session) => session.appendAudit(auditFor(newRecord(freshScope(), { number: 'INV-1' }))));
      await expect(write).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await driver.close();
    }
  });

  it('starts the reference host through PgBouncer (its start-up migrations run through it), then serves', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/reference-host/main.ts'], {
      cwd: resolve(import.meta.dirname, '../..'),
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: url },
      stdio: 'pipe',
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    try {
      await expect
        .poll(() => /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? (child.exitCode === null ? undefined : `exited: ${err}`), { timeout: 60_000 })
        .toMatch(/^http:/);
      const base = /listening on (http:\/\/\S+)/.exec(out)![1]!;
      expect(await fetch(`${base}/health`).then((r) => r.json())).toEqual({ status: 'ok' });
      expect(err).not.toMatch(/unsupported startup parameter/);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});
