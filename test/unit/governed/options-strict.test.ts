/**
 * Issue #27 item 5: `createGovernedApi` and `createGovernedResource` check their options with one
 * strict schema. A misspelt option, top-level or nested, is a ConfigurationError naming its path
 * and the closest known name; every option of the public option types is accepted (the `Required<…>`
 * objects below fail to compile when an option is added to the types and not here).
 */
import {
  ConfigurationError,
  createGovernedApi,
  createGovernedResource,
  createMetricsRegistry,
  defineEntity,
  memoryStorage,
  type GovernedApiOptions,
  type GovernedResourceOptions,
} from 'cellgate';
import { describe, expect, it } from 'vitest';

const secret = 'strict-options-secret-strict-options-secret';
const Task = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'work.task',
  version: '1.0.0',
  description: 'A to-do item',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: { title: { type: 'string' } },
});

/** The ConfigurationError `build` throws. */
function refusal(build: () => unknown): ConfigurationError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

const api = (extra: Record<string, unknown>) => () => createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: [Task], ...extra } as never);
const resource = (extra: Record<string, unknown>) => () =>
  createGovernedResource({ entity: Task, storage: memoryStorage(), auth: { secret }, ...extra } as never);

describe('governed options refuse typos', () => {
  it.each([
    ['rateLimt', { rateLimt: { limit: 5 } }, 'rateLimt: is not an option; did you mean "rateLimit"?'],
    ['basepath (case)', { basepath: '/api' }, 'basepath: is not an option; did you mean "basePath"?'],
    ['auth.secrte', { auth: { secrte: secret } }, 'auth.secrte: is not an option; did you mean "secret"?'],
    ['rateLimit.windowMS', { rateLimit: { limit: 5, windowMS: 1000 } }, 'rateLimit.windowMS: is not an option; did you mean "windowMs"?'],
    ['hooks.onRequst', { hooks: { onRequst: () => undefined } }, 'hooks.onRequst: is not an option; did you mean "onRequest"?'],
    ['audit.storeSnapshot', { audit: { storeSnapshot: true } }, 'audit.storeSnapshot: is not an option; did you mean "storeSnapshots"?'],
    ['redaction.hashSecrets', { redaction: { hashSecrets: 'x' } }, 'redaction.hashSecrets: is not an option; did you mean "hashSecret"?'],
    ['idempotency.ttl', { idempotency: { ttl: 5 } }, 'idempotency.ttl: is not an option; did you mean "ttlMs"?'],
    ['eventFeed.maxWaiter', { eventFeed: { maxWaiter: 5 } }, 'eventFeed.maxWaiter: is not an option; did you mean "maxWaiters"?'],
    ['resources.0.rolback', { resources: [{ entity: Task, rolback: false }] }, 'resources.0.rolback: is not an option; did you mean "rollback"?'],
    ['resources.tasks.tierr', { resources: { tasks: { entity: Task, tierr: 'tier-1' } } }, 'resources.tasks.tierr: is not an option; did you mean "tier"?'],
    [
      'resources.0.deprecation.sunet',
      { resources: [{ entity: Task, deprecation: { sunet: '2030-01-01' } }] },
      'resources.0.deprecation.sunet: is not an option; did you mean "sunset"?',
    ],
    ['an HTTP option inside a resource', { resources: [{ entity: Task, basePath: '/x' }] }, 'resources.0.basePath: is not an option; known options here:'],
    ['no close name', { zzzzzzzzzzzz: 1 }, 'zzzzzzzzzzzz: is not an option; known options here: auth, rateLimit'],
  ])('createGovernedApi refuses %s', (_name, extra, message) => {
    expect(refusal(api(extra)).message).toContain(message);
  });

  it.each([
    ['entitty', { entitty: Task }, 'entitty: is not an option; did you mean "entity"?'],
    ['resourceNme', { resourceName: undefined, resourceNme: 'tasks' }, 'resourceNme: is not an option; did you mean "resourceName"?'],
    ['deprecation.lnk', { deprecation: { lnk: 'https://x' } }, 'deprecation.lnk: is not an option; did you mean "link"?'],
    ['auth.audiance', { auth: { secret, audiance: 'app' } }, 'auth.audiance: is not an option; did you mean "audience"?'],
    ['an API option', { eventRoutes: false }, 'eventRoutes: is not an option'],
  ])('createGovernedResource refuses %s', (_name, extra, message) => {
    expect(refusal(resource(extra)).message).toContain(message);
  });

  it('names the path and what the value must be for a value of the wrong type', () => {
    expect(refusal(api({ trustProxy: 'yes' })).message).toBe('trustProxy: must be a boolean.');
    expect(refusal(api({ auth: 5 })).message).toBe('auth: must be a function or an object.');
    expect(refusal(api({ resources: [{ entity: Task, tier: 'tier-9' }] })).message).toBe('resources.0.tier: must be one of "tier-1", "tier-2", "tier-3".');
    expect(refusal(api({ storage: undefined })).message).toBe('storage: must be a storage driver such as memoryStorage().');
    expect(refusal(api({ resources: {} })).message).toBe('resources: must list at least one entity.');
    expect(refusal(() => createGovernedApi(null as never)).message).toBe('options: must be an object.');
  });

  it('bounds the suggestion work: a long unknown name is compared with no known name', () => {
    expect(refusal(api({ ['x'.repeat(100_000)]: 1 })).message).toMatch(/^x{1000}…: is not an option; known options here: auth/);
  });

  it('accepts every option of GovernedApiOptions and GovernedResourceOptions', async () => {
    const storage = memoryStorage();
    const shared = {
      auth: { secret, issuer: 'https://id.example', audience: ['app'], algorithms: ['HS256'], requireExpiry: true, clockTolerance: 5, resolveActor: undefined },
      rateLimit: { limit: 100, windowMs: 60_000, algorithm: 'token-bucket', key: (actor) => actor.id },
      basePath: '/api',
      hooks: { onRequest: () => undefined, onResponse: () => undefined },
      bodyLimit: 65_536,
      onError: () => undefined,
      logger: () => undefined,
      ip: () => '127.0.0.1',
      trustProxy: false,
      redaction: { hashSecret: 'h'.repeat(32) },
      audit: { storeSnapshots: true, storeDiffValues: (tenantId) => tenantId !== '', retentionDays: 365, immutability: false },
      metrics: createMetricsRegistry(),
      idempotency: { ttlMs: 60_000 },
      onEvent: () => undefined,
      purgeDeletedAfterDays: 30,
      recordLimit: 262_144,
    } satisfies Omit<GovernedApiOptions, 'storage' | 'resources' | 'auditRoutes' | 'eventRoutes' | 'eventFeed'>;
    const every: Required<GovernedApiOptions> = {
      ...shared,
      storage,
      resources: {
        tasks: {
          entity: Task,
          tier: 'tier-1',
          rollback: true,
          plans: ['pro'],
          resourceName: 'tasks',
          rules: { validate: () => undefined, afterCommit: () => undefined },
          deprecation: { sunset: '2030-01-01', link: 'https://x' },
        },
      },
      auditRoutes: true,
      eventRoutes: true,
      eventFeed: { maxWaiters: 10, maxWaitersPerActor: 2 },
      log: {
        signer: { name: 'audit.example.com', keyHash: 1, sign: async () => new Uint8Array(64) },
        origin: 'audit.example.com',
        everyLeaves: 10,
        everySeconds: 5,
        sink: () => undefined,
      },
    };
    const built = createGovernedApi(every);
    expect(Object.keys(built.resources)).toEqual(['tasks']);

    const everyResource: Required<GovernedResourceOptions> = {
      ...shared,
      entity: Task,
      storage,
      tier: 'tier-2',
      rollback: false,
      plans: ['pro'],
      resourceName: 'to-dos',
      rules: { validate: () => undefined },
      deprecation: true,
    };
    expect(createGovernedResource(everyResource).resourceName).toBe('to-dos');
  });
});

describe('resources as an object keyed by path name', () => {
  it('mounts each entry at its key, and refuses a resourceName that contradicts it', async () => {
    const built = createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: { 'to-dos': Task } });
    expect(built.resources['to-dos'].paths.collection).toBe('/v1/workspaces/:workspaceId/to-dos');
    expect(refusal(api({ resources: { tasks: { entity: Task, resourceName: 'jobs' } } })).message).toBe(
      'resources.tasks.resourceName: must be left out or equal its key "tasks" (the key is the path name).',
    );
    expect(refusal(api({ resources: { Tasks: Task } })).path).toBe('resources.Tasks.resourceName');
  });
});
