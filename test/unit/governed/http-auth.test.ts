/** Token verification (docs/decisions/B10.md): key sources, claim checks, refusals as 401 with a reason. */
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CellgateError, ConfigurationError, signDevToken } from 'cellgate';
import { createAuthenticator } from '../../../src/governed/auth/verify.ts';

const secret = 'test-secret-test-secret-test-secret-0123';
const tenant = '6b1c2a5e-0d9f-4e37-9a51-2f3e8d7c6b5a';
const sub = '0c4e7d21-5b8a-4f6e-9d3c-1a2b3c4d5e6f';
const ws = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const claims = { tenant_id: tenant, workspaces: { [ws]: ['admin'] }, permissions: ['audit:read'] };

const req = (token?: string, raw?: string) =>
  new Request('http://x/v1/things', { headers: raw ? { authorization: raw } : token ? { authorization: `Bearer ${token}` } : {} });

async function refusal(promise: Promise<unknown>): Promise<CellgateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CellgateError);
  expect((error as CellgateError).code).toBe('UNAUTHENTICATED');
  return error as CellgateError;
}

const hs = (payload: Record<string, unknown> = claims, key = secret) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setExpirationTime('5m').sign(new TextEncoder().encode(key));

describe('HS256 secret', () => {
  const authenticate = createAuthenticator({ secret });

  it('maps the default claims to an actor', async () => {
    const actor = await authenticate(req(await hs()));
    expect(actor).toMatchObject({ id: sub, type: 'user', tenantId: tenant, roles: [], workspaces: { [ws]: ['admin'] }, permissions: ['audit:read'] });
  });

  it('refuses a missing header, a non-Bearer header and a non-JWT token, saying which', async () => {
    expect((await refusal(authenticate(req()))).message).toMatch(/required/);
    expect((await refusal(authenticate(req(undefined, 'Basic abc')))).message).toMatch(/Bearer <token>/);
    expect((await refusal(authenticate(req('not-a-jwt')))).message).toMatch(/malformed/);
  });

  it('refuses an expired token and one not valid yet', async () => {
    const key = new TextEncoder().encode(secret);
    const expired = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(key);
    expect((await refusal(authenticate(req(expired)))).message).toBe('Token has expired.');
    const future = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setNotBefore(Math.floor(Date.now() / 1000) + 600)
      .setExpirationTime('1h')
      .sign(key);
    expect((await refusal(authenticate(req(future)))).message).toBe('Token is not valid yet.');
  });

  it('refuses a token without exp unless requireExpiry is false', async () => {
    const forever = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).sign(new TextEncoder().encode(secret));
    expect((await refusal(authenticate(req(forever)))).message).toBe('Token claim "exp" is missing.');
    expect((await createAuthenticator({ secret, requireExpiry: false })(req(forever))).id).toBe(sub);
  });

  it('honours clockTolerance for a token expired seconds ago', async () => {
    const key = new TextEncoder().encode(secret);
    const justExpired = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 20)
      .sign(key);
    await refusal(authenticate(req(justExpired)));
    const tolerant = createAuthenticator({ secret, clockTolerance: 60 });
    expect((await tolerant(req(justExpired))).id).toBe(sub);
  });

  it('refuses a wrong secret and alg none', async () => {
    expect((await refusal(authenticate(req(await hs(claims, 'another-secret-another-secret-another!'))))).message).toBe('Token signature is invalid.');
    const none = new UnsecuredJWT({ ...claims, sub }).setExpirationTime('5m').encode();
    await refusal(authenticate(req(none)));
  });

  it('refuses missing or malformed claims naming the claim', async () => {
    expect((await refusal(authenticate(req(await hs({ workspaces: {} }))))).message).toMatch(/tenant_id/);
    expect((await refusal(authenticate(req(await hs({ ...claims, tenant_id: 'acme' }))))).message).toMatch(/tenant_id/);
    expect((await refusal(authenticate(req(await hs({ ...claims, actor_type: 'robot' }))))).message).toMatch(/actor_type/);
    expect((await refusal(authenticate(req(await hs({ ...claims, workspaces: { [ws]: 'admin' } }))))).message).toMatch(/workspaces/);
  });

  it('checks issuer and audience when configured', async () => {
    const strict = createAuthenticator({ secret, issuer: 'https://id.example', audience: 'cellgate' });
    const good = await signDevToken({ secret, tenantId: tenant, sub, issuer: 'https://id.example', audience: 'cellgate' });
    expect((await strict(req(good))).tenantId).toBe(tenant);
    const badIss = await signDevToken({ secret, tenantId: tenant, issuer: 'https://evil.example', audience: 'cellgate' });
    expect((await refusal(strict(req(badIss)))).message).toBe('Token issuer is not accepted.');
    const badAud = await signDevToken({ secret, tenantId: tenant, issuer: 'https://id.example', audience: 'other' });
    expect((await refusal(strict(req(badAud)))).message).toBe('Token audience is not accepted.');
  });

  it('lets resolveActor replace the mapping', async () => {
    const custom = createAuthenticator({
      secret,
      resolveActor: (payload) => ({ id: String(payload.sub), type: 'service', tenantId: tenant, roles: ['admin'], workspaces: {}, permissions: [] }),
    });
    expect(await custom(req(await hs({ foo: 1 })))).toMatchObject({ id: sub, type: 'service', roles: ['admin'] });
  });
});

describe('configuration', () => {
  it('refuses a short secret, no key source, two sources and alg none', () => {
    expect(() => createAuthenticator({ secret: 'short' })).toThrow(ConfigurationError);
    expect(() => createAuthenticator({})).toThrow(/exactly one/);
    expect(() => createAuthenticator({ secret, jwksUrl: 'http://x/jwks' })).toThrow(/exactly one/);
    expect(() => createAuthenticator({ secret, algorithms: ['none'] })).toThrow(/none/);
    expect(() => createAuthenticator({ jwksUrl: 'not a url' })).toThrow(ConfigurationError);
  });
});

describe('public keys', () => {
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;
  let server: Server;
  let jwksUrl: string;
  const rs = (payload: Record<string, unknown> = claims, kid?: string) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', ...(kid ? { kid } : {}) })
      .setSubject(sub)
      .setExpirationTime('5m')
      .sign(keys.privateKey);

  beforeAll(async () => {
    keys = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = createServer((_, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    jwksUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('verifies with a PEM public key and refuses an HS256 token under it', async () => {
    const authenticate = createAuthenticator({ publicKey: await exportSPKI(keys.publicKey) });
    expect((await authenticate(req(await rs()))).id).toBe(sub);
    expect((await refusal(authenticate(req(await hs())))).message).toBe('Token algorithm is not accepted.');
  });

  it('verifies with a JWK given as JSON text', async () => {
    const authenticate = createAuthenticator({ publicKey: JSON.stringify(await exportJWK(keys.publicKey)) });
    expect((await authenticate(req(await rs()))).tenantId).toBe(tenant);
  });

  it('verifies with a JWKS URL served over HTTP', async () => {
    const authenticate = createAuthenticator({ jwksUrl });
    expect((await authenticate(req(await rs(claims, 'k1')))).id).toBe(sub);
    const other = await generateKeyPair('RS256');
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setSubject(sub).setExpirationTime('5m').sign(other.privateKey);
    expect((await refusal(authenticate(req(foreign)))).message).toBe('Token signature is invalid.');
  });
});

describe('claim normalisation', () => {
  it('compares ids in lower case and merges workspace keys that differ only in case', async () => {
    const authenticate = createAuthenticator({ secret });
    const upper = await new SignJWT({ tenant_id: tenant.toUpperCase(), workspaces: { [ws.toUpperCase()]: ['viewer'], [ws]: ['editor'] } })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub.toUpperCase())
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(secret));
    expect(await authenticate(req(upper))).toMatchObject({ id: sub, tenantId: tenant, workspaces: { [ws]: ['viewer', 'editor'] } });
  });
});
