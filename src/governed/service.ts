/**
 * The governed service: the domain core of one governed entity (docs/governed-conventions.md Area B), no HTTP. Each
 * operation lives in its own module over one shared context (`service-context.ts`); this module
 * is the programmatic edge: it parses its caller's arguments with the same schemas the HTTP edge
 * uses, checks access, then runs the operation. Every mutation is one storage transaction.
 */
import type { EntityTypes, GeneralEntityTypes } from '../entity-document/index.ts';
import type { EntityStorageModel, RecordScope } from '../storage/types.ts';
import { listParamsSchema, type ParsedListParams } from './list-query.ts';
import { createOperation } from './service-create.ts';
import type { WriteScope } from './change-set/write-scope.ts';
import { createServiceContext, recordScope, type ServiceContext, type ServiceOperation } from './service-context.ts';
import { deleteOperation } from './service-delete.ts';
import { auditOperation, historyOperation, versionsOperation } from './service-history.ts';
import { getOperation, listOperation } from './service-read.ts';
import { rollbackOperation } from './service-rollback.ts';
import { getAtOperation, listAtOperation } from './time-travel/read-operations.ts';
import { includeSchema } from './relations/include.ts';
import { asOfOperation, changesOperation, versionAtOperation } from './time-travel/record-operations.ts';
import { AsOfInputSchema, ChangesQuerySchema, VersionRefSchema } from './time-travel/schemas.ts';
import {
  BodyObjectSchema,
  HistoryParamsSchema,
  historyPaging,
  IdempotencyKeySchema,
  parseId,
  parseInput,
  RollbackBodySchema,
  UuidSchema,
  VersionSchema,
} from './service-schemas.ts';
import type { GovernedService, GovernedServiceOptions } from './service-types.ts';
import { updateOperation } from './service-update.ts';
import { traceOperation } from '../telemetry/operation-span.ts';
import type { ConcurrencyOptions, GovernedContext } from './types.ts';

export type * from './service-types.ts';
export type * from './types.ts';

/** The operations of a service, by name: the HTTP operation table runs these on input it parsed itself. */
export const SERVICE_OPERATIONS = {
  list: listOperation,
  get: getOperation,
  create: createOperation,
  update: updateOperation,
  delete: deleteOperation,
  rollback: rollbackOperation,
  versions: versionsOperation,
  history: historyOperation,
  getAudit: auditOperation,
  getAt: getAtOperation,
  listAt: listAtOperation,
  versionAt: versionAtOperation,
  changes: changesOperation,
} as const;

/** Names of the service operations. */
export type ServiceOperationName = keyof typeof SERVICE_OPERATIONS;

const CONTEXTS = new WeakMap<GovernedService, ServiceContext>();

/** @internal The shared context behind a service built by {@link createGovernedService}. */
export function serviceContextOf(service: GovernedService<EntityTypes>): ServiceContext {
  const ctx = CONTEXTS.get(service as unknown as GovernedService);
  if (ctx === undefined) throw new TypeError('Not a service built by createGovernedService');
  return ctx;
}

/** Parses the version carriers a programmatic caller passed. */
function concurrencyOf(options: ConcurrencyOptions | undefined): { ifMatch?: number; expectedVersion?: number } {
  const ifMatch = options?.ifMatch === undefined ? undefined : parseInput(VersionSchema, options.ifMatch, 'parameter', 'If-Match');
  const expectedVersion =
    options?.expectedVersion === undefined ? undefined : parseInput(VersionSchema, options.expectedVersion, 'parameter', 'expectedVersion');
  return { ...(ifMatch === undefined ? {} : { ifMatch }), ...(expectedVersion === undefined ? {} : { expectedVersion }) };
}

/**
 * Creates the governed service of one entity: create/get/list/update/delete/rollback and history,
 * each taking a {@link GovernedContext} (actor, scope from the path, request metadata), enforcing
 * access, writing audit and metrics. `model` lets a caller that already built the storage model
 * share it (the resource and its service then hold the same object).
 *
 * @example createGovernedService
 * import { readFileSync } from 'node:fs';
 * import { type Actor, createGovernedService, loadEntity, memoryStorage } from 'cellgate';
 *
 * const storage = memoryStorage();
 * const tasks = createGovernedService({ entity: loadEntity(JSON.parse(readFileSync('./task.entity.json', 'utf8'))), storage });
 * await storage.migrate([tasks.model]);
 * const workspaceId = crypto.randomUUID();
 * const actor: Actor = { id: 'u1', type: 'user', tenantId: 't1', roles: [], workspaces: { [workspaceId]: ['editor'] }, permissions: [] };
 * export const created = await tasks.create({ actor, scope: { workspaceId } }, { title: 'Write tests' });
 */
export function createGovernedService<T extends EntityTypes = GeneralEntityTypes>(
  options: GovernedServiceOptions<T>,
  model?: EntityStorageModel,
): GovernedService<T> {
  const ctx = createServiceContext(options as GovernedServiceOptions, model);
  const listSchema = listParamsSchema(ctx.entity);
  const service = serviceOver(ctx, listSchema, undefined);
  // A transaction reaches this resource through its peers: the same operations, in the transaction's write.
  ctx.peers.set(ctx.resourceName, { ctx, over: (running) => serviceOver(ctx, listSchema, running) });
  CONTEXTS.set(service, ctx);
  // The answers are built from the checked entity, so they have the types its document declares.
  return service as unknown as GovernedService<T>;
}

/**
 * The operations of one entity, each parsing its arguments, checking access and running the
 * operation: in a transaction of its own (`running` undefined), or in the running write of an
 * `api.transaction`.
 */
function serviceOver(ctx: ServiceContext, listSchema: ReturnType<typeof listParamsSchema>, running: WriteScope | undefined): GovernedService {
  /** Scope, then the inputs beside the body, then access, then the body, then the work: the order of the HTTP edge too. */
  const call = <I, O>(
    name: string,
    operation: ServiceOperation<I, O>,
    context: GovernedContext,
    head: () => Omit<I, 'body'>,
    body?: () => unknown,
  ): Promise<O> =>
    traceOperation(name, ctx.resourceType, async (traceId) => {
      // In code there is no traceparent: the operation's span gives the audit record its trace.
      if (traceId !== undefined && !context.meta?.traceId) context = { ...context, meta: { ...context.meta, traceId } };
      const scope: RecordScope = recordScope(ctx, context);
      const parsed = head();
      operation.access(ctx, context, scope, parsed);
      return operation.run(ctx, context, scope, (body === undefined ? parsed : { ...parsed, body: body() }) as I, running);
    });
  const object = (input: unknown) => () => parseInput(BodyObjectSchema, input, 'body member');

  const service: GovernedService = {
    entity: ctx.entity,
    resourceType: ctx.resourceType,
    resourceName: ctx.resourceName,
    tier: ctx.tier,
    rollbackEnabled: ctx.rollbackEnabled,
    model: ctx.model,
    readPermission: ctx.policy.readPermission,

    create: (context, input, createOptions = {}) =>
      call(
        'create',
        createOperation,
        context,
        () =>
          createOptions.idempotencyKey === undefined
            ? {}
            : { idempotencyKey: parseInput(IdempotencyKeySchema, createOptions.idempotencyKey, 'header', 'Idempotency-Key') },
        object(input),
      ),
    get: (context, id, getOptions = {}) =>
      call('get', getOperation, context, () => ({
        id: parseId(id),
        includeDeleted: getOptions.includeDeleted === true,
        ...(getOptions.include === undefined ? {} : { include: parseInput(includeSchema(ctx.entity), getOptions.include, 'parameter', 'include') }),
      })),
    list: (context, params = {}) => call('list', listAtOperation, context, (): ParsedListParams => parseInput(listSchema, params, 'parameter')),
    update: (context, id, body, concurrency) =>
      call('update', updateOperation, context, () => ({ id: parseId(id), ...concurrencyOf(concurrency) }), object(body)),
    delete: (context, id, concurrency) => call('delete', deleteOperation, context, () => ({ id: parseId(id), ...concurrencyOf(concurrency) })),
    rollback: (context, id, body, concurrency) =>
      call(
        'rollback',
        rollbackOperation,
        context,
        () => ({ id: parseId(id), ...concurrencyOf(concurrency) }),
        () => parseInput(RollbackBodySchema, object(body)(), 'body member'),
      ),
    history: (context, params = {}) =>
      call('listAudit', historyOperation, context, () => {
        const { resourceId, ...paging } = params;
        return {
          paging: historyPaging(parseInput(HistoryParamsSchema, paging, 'parameter')),
          ...(resourceId === undefined ? {} : { resourceId: parseInput(UuidSchema, resourceId, 'parameter', 'resourceId') }),
        };
      }),
    versions: (context, id, params = {}) =>
      call('versions', versionsOperation, context, () => ({ id: parseId(id), paging: historyPaging(parseInput(HistoryParamsSchema, params, 'parameter')) })),
    getAudit: (context, auditId) => call('getAudit', auditOperation, context, () => ({ auditId: parseId(auditId, 'Audit record') })),
    asOf: (context, id, instant) =>
      call('asOf', asOfOperation, context, () => ({ id: parseId(id), asOf: parseInput(AsOfInputSchema, instant, 'parameter', 'asOf') })),
    versionAt: (context, id, version) =>
      call('versionAt', versionAtOperation, context, () => ({ id: parseId(id), version: parseInput(VersionRefSchema, version, 'parameter', 'version') })),
    changes: (context, id, range) =>
      call('changes', changesOperation, context, () => ({ id: parseId(id), ...parseInput(ChangesQuerySchema, range, 'parameter') })),
  };
  return service;
}
