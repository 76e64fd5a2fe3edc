/** createGovernedResource and createGovernedApi: construction checks, basePath, fall-through, the programmatic service. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { composeHandlers, createFetchHandler, ConfigurationError, createGovernedResource, createGovernedApi, signDevToken, memoryStorage } from 'cellgate';

const secret = 'unit-secret-unit-secret-unit-secret-unit';
const doc = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../examples/entities/${name}.entity.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
const tenant = '6b1c2a5e-0d9f-4e37-9a51-2f3e8d7c6b5a';
const ws = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const actor = {
  id: '0c4e7d21-5b8a-4f6e-9d3c-1a2b3c4d5e6f',
  type: 'user' as const,
  tenantId: tenant,
  roles: ['admin'],
  workspaces: {},
  permissions: ['audit:read'],
};

describe('createGovernedResource', () => {
  it('mounts under basePath, falls through elsewhere and shares state with its service', async () => {
    const storage = memoryStorage();
    const customers = createGovernedResource({ entity: doc('customer') as never, storage, auth: { secret }, basePath: '/api/' });
    await customers.migrate();
    expect(customers.paths.collection).toBe('/api/v1/workspaces/:workspaceId/customers');
    expect(customers.resourceName).toBe('customers');
    expect(customers.model.resourceType).toBe('crm.Customer@v1');
    const created = await customers.service.create({ actor, scope: { workspaceId: ws } }, { name: 'A', email: 'a@b.example', status: 'lead' });
    const token = await signDevToken({ secret, tenantId: tenant, sub: actor.id, roles: ['viewer'] });
    const answer = await customers(
      new Request(`http://h/api/v1/workspaces/${ws}/customers/${created.data.id}`, { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { name: string } }).data.name).toBe('A');
    expect(await customers.match(new Request(`http://h/v1/workspaces/${ws}/customers`))).toBeUndefined();
    const host = composeHandlers(
      customers,
      createFetchHandler(async () => new Response('host route')),
    );
    expect(await (await host(new Request('http://h/anything'))).text()).toBe('host route');
  });

  it('accepts a function as auth (host-owned authentication)', async () => {
    const events = createGovernedResource({ entity: doc('activity-event') as never, storage: memoryStorage(), auth: async () => actor });
    await events.migrate();
    expect((await events(new Request('http://h/v1/activity-events'))).status).toBe(200);
  });

  it.each([
    [{ auth: undefined }, 'auth'],
    [{ auth: { secret: 'short' } }, 'auth.secret'],
    [{ basePath: 'api' }, 'basePath'],
    [{ resourceName: 'Customers' }, 'resourceName'],
    [{ bodyLimit: 0 }, 'bodyLimit'],
    [{ rateLimit: { limit: 0 } }, 'rateLimit.limit'],
    [{ deprecation: { sunset: 'not a date' } }, 'deprecation.sunset'],
    [{ entity: { ...doc('customer'), scope: 'galactic' } }, 'entity.scope'],
  ])('throws a ConfigurationError naming %# (%s)', (override, path) => {
    const build = () => createGovernedResource({ entity: doc('customer') as never, storage: memoryStorage(), auth: { secret }, ...(override as object) });
    expect(build).toThrow(ConfigurationError);
    try {
      build();
    } catch (error) {
      expect((error as ConfigurationError).path).toBe(path);
    }
  });

  it('refuses a system-global resource named like a reserved /v1 segment', () => {
    expect(() => createGovernedResource({ entity: doc('activity-event') as never, storage: memoryStorage(), auth: { secret }, resourceName: 'audit' })).toThrow(
      /collides/,
    );
  });
});

describe('createGovernedApi', () => {
  it('refuses two resources on the same path and names the resource', () => {
    expect(() => createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: [doc('customer'), doc('customer')] as never[] })).toThrow(
      /resources\.1/,
    );
    expect(() => createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: [] })).toThrow(ConfigurationError);
  });

  it('migrates every resource and can leave out the audit routes', async () => {
    const api = createGovernedApi({
      storage: memoryStorage(),
      auth: { secret },
      auditRoutes: false,
      resources: [doc('customer'), { entity: doc('invoice'), resourceName: 'bills' }] as never[],
    });
    await api.migrate();
    expect(Object.keys(api.resources)).toEqual(['customers', 'bills']);
    expect(await api.match(new Request('http://h/v1/audit'))).toBeUndefined();
  });
});
