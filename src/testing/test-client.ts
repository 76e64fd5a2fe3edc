/**
 * The typed client of `createTestApi`: `t.as(actor).tasks.create(input)` calls the API over its
 * Fetch handler with the actor's token, as an app's client would, and resolves the answer's
 * `{ data, meta }` with the record type of the resource's entity. A refusal rejects with a
 * `CellgateError` carrying the answer's status, code and details, as the service itself would.
 */
import type { EntityTypes } from '../entity-document/index.ts';
import { CellgateError, type ErrorCode } from '../errors.ts';
import type { GovernedResource } from '../governed/create-governed-resource.ts';
import type { ListParams, ListView, RecordView } from '../governed/types.ts';
import type { RollbackInput, UpdateBody } from '../governed/service-types.ts';

/** The list query of the client: the service's list parameters, or query text as in a URL. */
export type TestListQuery = Pick<ListParams, 'page' | 'pageSize' | 'sortBy' | 'sortDir' | 'q' | 'includeDeleted'> | Record<string, string>;

/** One resource, called as one actor. */
export interface TestResourceClient<T extends EntityTypes> {
  /** `POST` the collection. */
  create(input: T['input'], options?: { idempotencyKey?: string }): Promise<RecordView<T['record']>>;
  /** `GET` one record. */
  get(id: string): Promise<RecordView<T['record']>>;
  /** `GET` the collection; filters as query text (`{ 'amount[gt]': '100' }`). */
  list(query?: TestListQuery): Promise<ListView<T['record']>>;
  /** `PATCH` one record: merge form or `{ patch: [ops] }`, with `expectedVersion`. */
  update(id: string, body: UpdateBody<T>): Promise<RecordView<T['record']>>;
  /** `DELETE` (soft) one record at `expectedVersion`. */
  delete(id: string, expectedVersion: number): Promise<RecordView<T['record']>>;
  /** `POST …/:id/rollback`. */
  rollback(id: string, body: RollbackInput): Promise<RecordView<T['record']>>;
}

/** The client of every resource of an API, by path name, each with its own record type. */
export type TestClient<Resources> = {
  readonly [K in keyof Resources]: Resources[K] extends GovernedResource<infer T> ? TestResourceClient<T> : never;
};

/** How the client reaches the API: a path of a resource, and a call as the client's actor. */
export interface TestTransport {
  path(resourceName: string, id?: string): string;
  call(path: string, method: string, json?: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** Reads an answer: its body for a 2xx, a `CellgateError` with the envelope's code and details otherwise. */
async function answerOf<T>(response: Response): Promise<T> {
  const body = (await response.json()) as Record<string, unknown>;
  if (response.ok) return body as T;
  const details = body.details as Record<string, unknown> | undefined;
  throw new CellgateError(body.error as ErrorCode, String(body.message), details === undefined ? {} : { details });
}

/** The client of one resource over `transport`. */
function resourceClient(name: string, transport: TestTransport): TestResourceClient<EntityTypes> {
  const send = <T>(path: string, method: string, json?: unknown, headers?: Record<string, string>) =>
    transport.call(path, method, json, headers).then((response) => answerOf<T>(response));
  return {
    create: (input, options) =>
      send(transport.path(name), 'POST', input, options?.idempotencyKey === undefined ? undefined : { 'idempotency-key': options.idempotencyKey }),
    get: (id) => send(transport.path(name, id), 'GET'),
    list: (query = {}) => {
      const search = new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)])).toString();
      return send(`${transport.path(name)}${search === '' ? '' : `?${search}`}`, 'GET');
    },
    update: (id, body) => send(transport.path(name, id), 'PATCH', body),
    delete: (id, expectedVersion) => send(transport.path(name, id), 'DELETE', undefined, { 'if-match': `"${expectedVersion}"` }),
    rollback: (id, body) => send(`${transport.path(name, id)}/rollback`, 'POST', body),
  };
}

/** A client of each of `resourceNames` over `transport`. */
export function testClient<Resources>(resourceNames: readonly string[], transport: TestTransport): TestClient<Resources> {
  return Object.fromEntries(resourceNames.map((name) => [name, resourceClient(name, transport)])) as TestClient<Resources>;
}
