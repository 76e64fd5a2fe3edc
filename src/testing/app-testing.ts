/**
 * Testing app code against cellgate, in a few lines: a governed API built from the app's own
 * entity documents on the in-memory driver, actors with any roles and permissions (signed tokens
 * included), a fetch-like call helper, and the audit trail as readable lines.
 *
 * @example
 * const t = await createTestApi({ ...appOptions, resources: { tasks: Task } }); // the app's own createGovernedApi options
 * const { data } = await t.as({ roles: ['editor'] }).tasks.create({ title: 'Write tests' }); // typed from Task
 * @example
 * const t = await createTestApi({ entities: [taskDocument] });
 * const created = await t.fetch(t.path('tasks'), { method: 'POST', as: { roles: ['editor'] }, json: { title: 'Write tests' } });
 * expect(created.status).toBe(201);
 * expect(await t.auditTrail((await created.json()).data.id)).toEqual(['entity.created v1 by user 00000000-0000-4000-8000-00000000000a']);
 */
import { ConfigurationError } from '../errors.ts';
import type { GovernedApiResources, GovernedResourcesOf } from '../governed/api-resources.ts';
import type { GovernedResource } from '../governed/create-governed-resource.ts';
import { createGovernedApi, type GovernedApi, type GovernedApiOptions } from '../governed/http/api.ts';
import { signDevToken } from '../governed/auth/dev-token.ts';
import { memoryStorage } from '../storage/memory/index.ts';
import type { AuditRecord, StorageDriver } from '../storage/types.ts';
import { testClient, type TestClient } from './test-client.ts';

/** The ids a test API uses unless told otherwise (fixed, so failures read the same every run). */
export const TEST_IDS = {
  tenant: '00000000-0000-4000-8000-000000000001',
  workspace: '00000000-0000-4000-8000-000000000002',
  cell: '00000000-0000-4000-8000-000000000003',
  actor: '00000000-0000-4000-8000-00000000000a',
} as const;

/** A test secret (HS256 needs at least 32 bytes); tokens are signed and verified with it. */
const TEST_SECRET = 'cellgate-testing-secret-not-for-production-use';

/** Who makes a call: roles in the test workspace, tenant-wide roles, permissions. */
export interface TestActor {
  /** Roles in the workspace (`workspaceId`). @default [] */
  roles?: string[];
  /** Tenant-wide roles (reach every workspace). @default [] */
  tenantRoles?: string[];
  /** Permissions such as `audit:read`. @default [] */
  permissions?: string[];
  /** The actor's id (`sub`). @default TEST_IDS.actor */
  id?: string;
  /** `user` or `service`. @default 'user' */
  type?: 'user' | 'service';
  /** The workspace the `roles` apply in. @default the API's workspace */
  workspaceId?: string;
}

/**
 * Options of {@link createTestApi}: the app's own `createGovernedApi` options (resources, hooks,
 * onEvent, rateLimit, …; `storage` optional, `auth` made by the test API), or the older
 * `entities` list, plus the ids the test uses.
 */
export type TestApiOptions<R extends GovernedApiResources = GovernedApiResources> = TestIdOptions &
  Partial<Omit<GovernedApiOptions<R>, 'auth' | 'resources'>> &
  (
    | {
        /** The app's `resources`, as given to `createGovernedApi` (an object keyed by path name types the client). */
        resources: R;
        entities?: never;
      }
    | {
        /**
         * The app's entity documents (or `{ entity, … }` resource options), loosely typed so a
         * document imported from JSON fits as it is; each is checked at run time (a bad one throws
         * a `ConfigurationError` naming it). The same as `resources` given as a list.
         */
        entities: readonly unknown[];
        resources?: never;
      }
  );

/** The ids of a test API. */
export interface TestIdOptions {
  /** Tenant of every actor. @default TEST_IDS.tenant */
  tenantId?: string;
  /** Workspace of `path()` and of actors' `roles`. @default TEST_IDS.workspace */
  workspaceId?: string;
  /** Cell of `path()` for cell-scoped entities. @default TEST_IDS.cell */
  cellId?: string;
}

/** `RequestInit` plus who calls (`as`) and a JSON body (`json`). */
export interface TestRequestInit extends RequestInit {
  /** The actor; a token is signed for it. Omitted: no `Authorization` header. */
  as?: TestActor;
  /** Serialised as the body with `content-type: application/json`. */
  json?: unknown;
}

/** What {@link createTestApi} resolves; `Resources` is the API's `resources` map (typed by an object-form `resources`). */
export interface TestApi<Resources = GovernedResourcesOf<GovernedApiResources>> {
  /** The governed API under test (a Fetch handler; mount it or call it). */
  api: GovernedApi<Resources>;
  /** Its storage. */
  storage: StorageDriver;
  /** The ids in use. */
  ids: { tenant: string; workspace: string; cell: string };
  /** A signed bearer token for `actor`. */
  token(actor?: TestActor): Promise<string>;
  /** The collection path of a resource (`tasks`), or an item path with `id`, scope ids filled in. */
  path(resourceName: string, id?: string): string;
  /**
   * A typed client of every resource as `actor` (a token is signed for it): `t.as(actor).tasks.create(input)`
   * resolves `{ data, meta }`; a refusal rejects with a `CellgateError` (`status`, `code`, `details`).
   */
  as(actor: TestActor): TestClient<Resources>;
  /** Calls the API like `fetch` (a path or a full URL), as `init.as`. */
  fetch(input: string, init?: TestRequestInit): Promise<Response>;
  /** The audit records of one resource id, oldest first. */
  audit(resourceId: string): Promise<AuditRecord[]>;
  /** The audit trail of one resource id as lines, oldest first: `entity.updated v2 by user <id>`. */
  auditTrail(resourceId: string): Promise<string[]>;
  /** Closes the storage. */
  close(): Promise<void>;
}

/**
 * Builds a governed API from the app's entities on the in-memory driver (migrated), with token
 * auth on a test secret.
 *
 * @example createTestApi
 * import { readFileSync } from 'node:fs';
 * import { expect, it } from 'vitest';
 * import { createTestApi } from 'cellgate/testing';
 *
 * it('an editor creates a task', async () => {
 *   const t = await createTestApi({ entities: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))] });
 *   const created = await t.fetch(t.path('tasks'), { method: 'POST', as: { roles: ['editor'] }, json: { title: 'Write tests' } });
 *   expect(created.status).toBe(201);
 *   await t.close();
 * });
 */
export async function createTestApi<const R extends GovernedApiResources>(options: TestApiOptions<R>): Promise<TestApi<GovernedResourcesOf<R>>> {
  const { entities, resources, tenantId, workspaceId, cellId, ...appOptions } = options;
  if ('auth' in appOptions) throw new ConfigurationError('auth', 'is made by createTestApi (tokens signed with its test secret, see token()); leave it out.');
  if ((entities === undefined) === (resources === undefined))
    throw new ConfigurationError('resources', "give the app's resources (or the older entities list), one of the two.");
  const storage = appOptions.storage ?? memoryStorage();
  const ids = { tenant: tenantId ?? TEST_IDS.tenant, workspace: workspaceId ?? TEST_IDS.workspace, cell: cellId ?? TEST_IDS.cell };
  // The app's own options, checked by createGovernedApi's strict schema like in the app; only auth is the test's.
  const api = createGovernedApi({ ...appOptions, storage, auth: { secret: TEST_SECRET }, resources: (resources ?? entities) as R });
  await api.migrate();

  const token = (actor: TestActor = {}) =>
    signDevToken({
      secret: TEST_SECRET,
      tenantId: ids.tenant,
      sub: actor.id ?? TEST_IDS.actor,
      actorType: actor.type ?? 'user',
      roles: actor.tenantRoles ?? [],
      workspaces: actor.roles?.length ? { [actor.workspaceId ?? ids.workspace]: actor.roles } : {},
      permissions: actor.permissions ?? [],
    });

  const path = (resourceName: string, id?: string) => {
    const all = api.resources as Readonly<Record<string, GovernedResource>>;
    const resource = Object.hasOwn(all, resourceName) ? all[resourceName] : undefined;
    if (!resource) throw new Error(`No resource "${resourceName}"; the API has ${Object.keys(all).join(', ')}.`);
    const collection = resource.paths.collection.replace(':workspaceId', ids.workspace).replace(':cellId', ids.cell);
    return id === undefined ? collection : `${collection}/${id}`;
  };

  const call = async (input: string, init: TestRequestInit = {}) => {
    const { as, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (as) headers.set('authorization', `Bearer ${await token(as)}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const url = new URL(input, 'http://cellgate.test').href;
    return api(new Request(url, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) }));
  };

  const audit = async (resourceId: string) => {
    const records: AuditRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await storage.listAudit({ tenantId: ids.tenant, resourceId, limit: 100, ...(cursor ? { cursor } : {}) });
      records.push(...page.records);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return records.reverse();
  };

  return {
    api,
    storage,
    ids,
    token,
    path,
    as: (actor) =>
      testClient(Object.keys(api.resources as object), {
        path,
        call: (input, method, json, headers) =>
          call(input, { method, as: actor, ...(json === undefined ? {} : { json }), ...(headers === undefined ? {} : { headers }) }),
      }),
    fetch: call,
    audit,
    auditTrail: async (resourceId) =>
      (await audit(resourceId)).map((record) => `${record.eventType} v${record.resourceVersion} by ${record.actorType} ${record.actorId}`),
    close: () => storage.close(),
  };
}
