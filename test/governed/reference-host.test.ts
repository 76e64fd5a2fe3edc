/**
 * The governed demo resources over real HTTP on the reference host (a child process on a free
 * port, DATABASE_URL=memory:), its JWT settings, dev-mode token, /metrics, and `cellgate token`.
 */
import { ConfigurationError, createGovernedApi, memoryStorage } from 'cellgate';
import { createDemoResources } from 'cellgate/host';
import { run as runToken } from '../../src/cli/commands/token.ts';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startHost, type Host } from './processes.ts';
import { customer, demoEntity, expectError, ids, invoice, mint, paths, send, SECRET } from './support.ts';

describe('reference host: governed resources over HTTP', () => {
  let host: Host;
  let admin: string;
  beforeAll(async () => {
    host = await startHost({ CELLGATE_JWT_SECRET: SECRET });
    admin = await mint({ roles: ['admin'], permissions: ['audit:read', 'audit:restore', 'crm.customers.read'] });
  });
  afterAll(async () => {
    expect(await host.stop()).toBe(0);
  });

  it('does not print a demo token when a secret is configured', () => {
    expect(host.lines.join('\n')).not.toMatch(/demo token/);
    expect(host.lines.join('\n')).toMatch(/\/v1\/activity-events/);
  });

  it('runs the main paths: create, read, patch, conflict, delete, restore, history, versions', async () => {
    const created = await send(host.url, 'POST', paths.customers(), {
      token: admin,
      body: customer({ notes: 'private text here' }),
      headers: { 'x-correlation-id': ids.otherCell },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('x-correlation-id')).toBe(ids.otherCell);
    const url = created.headers.get('location')!;
    expect((await send(host.url, 'GET', url, { token: admin })).headers.get('etag')).toBe('"1"');
    expect((await send(host.url, 'PATCH', url, { token: admin, body: { expectedVersion: 1, status: 'active' } })).status).toBe(200);
    const conflict = await send(host.url, 'PATCH', url, { token: admin, body: { expectedVersion: 1, status: 'inactive' } });
    expectError(conflict, 409, 'CONFLICT');
    expect(conflict.body.details).toEqual({ expectedVersion: 1, currentVersion: 2 });
    expect((await send(host.url, 'DELETE', url, { token: admin, headers: { 'if-match': '"2"' } })).status).toBe(200);
    const restored = await send(host.url, 'POST', `${url}/rollback`, { token: admin, body: { targetVersion: 2 } });
    expect(restored.body.data).toMatchObject({ deletedAt: null, status: 'active', version: 4 });
    const audit = await send(host.url, 'GET', `/v1/audit?resourceId=${created.body.data.id}`, { token: admin });
    expect(audit.body.data.map((r: { eventType: string }) => r.eventType)).toEqual(['entity.restored', 'entity.deleted', 'entity.updated', 'entity.created']);
    expect(audit.body.data[3].requestId).toBe(ids.otherCell);
    expect(audit.text).not.toContain('private text here');
    const versions = await send(host.url, 'GET', `${url}/versions`, { token: admin });
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1]);
    expect(versions.text).not.toContain('ceo@acme.example');
  });

  it('serves invoices per cell and activity events per tenant; tier-3 refuses rollback', async () => {
    const inv = await send(host.url, 'POST', paths.invoices(), { token: admin, body: invoice() });
    expect(inv.status, inv.text).toBe(201);
    expect((await send(host.url, 'GET', `${paths.invoices()}?status[in]=DRAFT,SENT&sortBy=amount`, { token: admin })).body.meta.total).toBe(1);
    expect((await send(host.url, 'GET', `${paths.invoices(ids.ws, ids.otherCell)}/${inv.body.data.id}`, { token: admin })).status).toBe(404);
    const event = await send(host.url, 'POST', paths.events(), { token: admin, body: { kind: 'signup' } });
    expect(event.status).toBe(201);
    expectError(
      await send(host.url, 'POST', `${paths.events()}/${event.body.data.id}/rollback`, { token: admin, body: { targetVersion: 1 } }),
      422,
      'ROLLBACK_DISABLED',
    );
  });

  it('answers 401, 405 and 400 envelopes and exposes /metrics in Prometheus text', async () => {
    const unauthenticated = await send(host.url, 'GET', paths.customers());
    expectError(unauthenticated, 401, 'UNAUTHENTICATED');
    expect(unauthenticated.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    expectError(await send(host.url, 'PUT', paths.customers(), { token: admin, body: {} }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await send(host.url, 'GET', `${paths.customers()}?pageSize=0`, { token: admin }), 400, 'VALIDATION_ERROR');
    const metrics = await fetch(`${host.url}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toMatch(/entity_write_total\{[^}]*eventType="entity.created"[^}]*\} \d+/);
    expect((await fetch(`${host.url}/health`)).status).toBe(200);
  });

  it('accepts a token printed by `cellgate token`', async () => {
    const result = await run(['src/cli/index.ts', 'token', '--tenant', ids.tenant, '--workspace', `${ids.ws}=viewer,editor`, '--permission', 'audit:read'], {
      CELLGATE_JWT_SECRET: SECRET,
    });
    expect(result.code, result.stderr).toBe(0);
    const token = result.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    expect((await send(host.url, 'POST', paths.customers(), { token, body: customer() })).status).toBe(201);
    expectError(await send(host.url, 'GET', paths.customers(ids.otherWs), { token }), 403, 'FORBIDDEN');
  });
});

describe('reference host: settings', () => {
  it('dev mode prints a working demo token and a curl line', async () => {
    const host = await startHost({}, /^\s+try\s+curl/);
    try {
      const banner = host.lines.join('\n');
      expect(banner).toMatch(/dev mode/);
      expect(banner).toMatch(/curl -H "Authorization: Bearer /);
      const token = /Bearer ([\w-]+\.[\w-]+\.[\w-]+)/.exec(banner)![1]!;
      const workspace = /\/v1\/workspaces\/([0-9a-f-]{36})\/customers/.exec(banner)![1]!;
      expect((await send(host.url, 'GET', `/v1/workspaces/${workspace}/customers`, { token })).status).toBe(200);
    } finally {
      await host.stop();
    }
  });

  it('rate limits with CELLGATE_RATE_LIMIT (429 + Retry-After)', async () => {
    const host = await startHost({ CELLGATE_JWT_SECRET: SECRET, CELLGATE_RATE_LIMIT: '2' });
    try {
      const token = await mint({ roles: ['admin'] });
      expect((await send(host.url, 'GET', paths.customers(), { token })).status).toBe(200);
      expect((await send(host.url, 'GET', paths.events(), { token })).status).toBe(200);
      const limited = await send(host.url, 'GET', paths.customers(), { token });
      expectError(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await host.stop();
    }
  });

  it('checks issuer and audience from CELLGATE_JWT_ISSUER / CELLGATE_JWT_AUDIENCE', async () => {
    const host = await startHost({ CELLGATE_JWT_SECRET: SECRET, CELLGATE_JWT_ISSUER: 'https://id.test', CELLGATE_JWT_AUDIENCE: 'demo' });
    try {
      expectError(await send(host.url, 'GET', paths.customers(), { token: await mint({ roles: ['admin'] }) }), 401, 'UNAUTHENTICATED');
      const good = await mint({ roles: ['admin'], extra: { iss: 'https://id.test', aud: 'demo' } });
      expect((await send(host.url, 'GET', paths.customers(), { token: good })).status).toBe(200);
    } finally {
      await host.stop();
    }
  });

  it('verifies RS256 tokens with CELLGATE_JWT_PUBLIC_KEY (PEM) and refuses HS256 ones', async () => {
    const keys = await generateKeyPair('RS256', { extractable: true });
    const pem = await exportSPKI(keys.publicKey);
    const host = await startHost({ CELLGATE_JWT_PUBLIC_KEY: pem });
    try {
      expect(host.lines.join('\n')).not.toMatch(/dev mode/);
      const rs = await new SignJWT({ tenant_id: ids.tenant, roles: ['admin'] })
        .setProtectedHeader({ alg: 'RS256' })
        .setSubject(ids.admin)
        .setExpirationTime('5m')
        .sign(keys.privateKey);
      expect((await send(host.url, 'GET', paths.events(), { token: rs })).status).toBe(200);
      expectError(await send(host.url, 'GET', paths.events(), { token: await mint({ roles: ['admin'] }) }), 401, 'UNAUTHENTICATED');
    } finally {
      await host.stop();
    }
  });

  it('exits 1 with one line on a bad setting', async () => {
    const result = await run(['examples/reference-host/main.ts'], { PORT: '0', DATABASE_URL: 'memory:', CELLGATE_JWT_SECRET: 'too-short' });
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('npm warn'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/CELLGATE_JWT_SECRET/);
  });

  it.each([
    [{ CELLGATE_JWT_SECRET: 'too-short' }, 'CELLGATE_JWT_SECRET'],
    [{ CELLGATE_JWT_PUBLIC_KEY: 'not a key' }, 'CELLGATE_JWT_PUBLIC_KEY'],
    [{ CELLGATE_JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----' }, 'CELLGATE_JWT_PUBLIC_KEY'],
    [{ CELLGATE_RATE_LIMIT: 'lots' }, 'CELLGATE_RATE_LIMIT'],
    [{ CELLGATE_JWKS_URL: 'ftp://nope' }, 'CELLGATE_JWKS_URL'],
    [{ CELLGATE_JWT_SECRET: SECRET, CELLGATE_JWKS_URL: 'https://id.test/jwks' }, 'CELLGATE_JWT_SECRET, CELLGATE_JWKS_URL'],
  ])('refuses bad settings with a ConfigurationError naming the variable %#', async (env, variable) => {
    const error = await createDemoResources({ env: { DATABASE_URL: 'memory:', ...env } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).path).toBe(variable);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('cellgate token', () => {
  it('prints a token the governed handler accepts, with the requested claims', async () => {
    const sub = ids.editor;
    const result = await run(
      [
        'src/cli/index.ts',
        'token',
        '--tenant',
        ids.tenant,
        '--sub',
        sub,
        '--workspace',
        `${ids.ws}=admin`,
        '--permission',
        'audit:read',
        '--plan',
        'pro',
        '--expires',
        '15m',
      ],
      { CELLGATE_JWT_SECRET: SECRET },
    );
    expect(result.code, result.stderr).toBe(0);
    const api = createGovernedApi({ storage: memoryStorage(), auth: { secret: SECRET }, resources: [demoEntity('customer')] as never[] });
    await api.migrate();
    const created = await send(api, 'POST', paths.customers(), { token: result.stdout.trim(), body: customer() });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.createdBy).toBe(sub);
    const payload = JSON.parse(Buffer.from(result.stdout.trim().split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload).toMatchObject({ sub, tenant_id: ids.tenant, workspaces: { [ids.ws]: ['admin'] }, permissions: ['audit:read'], plan: 'pro' });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(900);
  });

  it('exits 2 with one line on bad arguments', async () => {
    const result = await run(['src/cli/index.ts', 'token', '--tenant', 'acme'], { CELLGATE_JWT_SECRET: SECRET });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual(['cellgate token: --tenant must be a UUID, got "acme"']);
  });

  it.each([
    [[], { CELLGATE_JWT_SECRET: SECRET }, /--tenant/],
    [['--tenant', ids.tenant], {}, /CELLGATE_JWT_SECRET/],
    [['--tenant', ids.tenant], { CELLGATE_JWT_SECRET: 'short' }, /at least 32 bytes/],
    [['--tenant', ids.tenant, '--workspace', 'nope'], { CELLGATE_JWT_SECRET: SECRET }, /--workspace/],
    [['--tenant', ids.tenant, '--workspace', `${ids.ws}=`], { CELLGATE_JWT_SECRET: SECRET }, /at least one role/],
    [['--tenant', ids.tenant, '--expires', 'soon'], { CELLGATE_JWT_SECRET: SECRET }, /--expires/],
    [['--tenant', ids.tenant, '--actor-type', 'robot'], { CELLGATE_JWT_SECRET: SECRET }, /--actor-type/],
    [['--tenant', ids.tenant, '--bogus'], { CELLGATE_JWT_SECRET: SECRET }, /bogus/],
  ])('answers exit code 2 and one line for bad arguments %# (in process)', async (args, env, message) => {
    const saved = process.env.CELLGATE_JWT_SECRET;
    const lines: string[] = [];
    const error = console.error;
    console.error = (...parts: unknown[]) => void lines.push(parts.join(' '));
    if ('CELLGATE_JWT_SECRET' in env) process.env.CELLGATE_JWT_SECRET = env.CELLGATE_JWT_SECRET;
    else delete process.env.CELLGATE_JWT_SECRET;
    try {
      expect(await runToken(args)).toBe(2);
    } finally {
      console.error = error;
      if (saved === undefined) delete process.env.CELLGATE_JWT_SECRET;
      else process.env.CELLGATE_JWT_SECRET = saved;
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });

  it('prints its usage with --help', async () => {
    const result = await run(['src/cli/index.ts', 'token', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Usage: cellgate token --tenant <uuid>/);
  });
});
