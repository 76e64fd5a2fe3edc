/**
 * `createGovernedApi`: several governed resources and the `/v1/audit` routes as one Fetch handler
 * on one router (one path lookup per request, whatever the number of resources), sharing storage,
 * token verification and one rate limiter (so a limit counts a caller across every resource).
 */
import { ConfigurationError } from '../../errors.ts';
import { createFetchHandler, type FetchHandler } from '../../http/handler.ts';
import type { StorageDriver } from '../../storage/types.ts';
import { buildGovernedResource, pipelineOf, type GovernedHttpOptions, type GovernedResource } from '../create-governed-resource.ts';
import type { GovernedServiceOptions } from '../service-types.ts';
import { apiResourceEntries, type GovernedApiResources, type GovernedResourcesOf, type LooseGovernedResources } from '../api-resources.ts';
import { governedApiOptionsSchema } from '../options-schema.ts';
import { parseOptions } from '../../validation/strict-options.ts';
import { buildGovernedOpenApi } from '../openapi.ts';
import { eventFeedRoutes, feedWaiterLimits, type EventFeedOptions } from '../events/feed-route.ts';
import { historyReachPolicy } from '../history-reach.ts';
import { callerDocuments } from '../openapi-access.ts';
import { apiAccess, type ApiAccess } from '../principal-access.ts';
import { withConsistency } from './consistency.ts';
import { normalizeBasePath } from './paths.ts';
import { createGovernedRouter, type RoutedResource } from './router.ts';
import { linkReferences } from '../relations/link.ts';
import { runTransaction } from '../change-set/bind.ts';
import type { Transaction, TransactionService } from '../change-set/transaction-types.ts';
import type { GovernedContext } from '../types.ts';
import { createCheckpoints, type VerifiableLogOptions } from '../log/checkpoints.ts';
import { logRoutes } from '../log/routes.ts';
import { withCheckpointTrigger } from '../log/write-trigger.ts';
import { withLogPaths } from '../log/openapi.ts';
import { resolveUpgrade } from '../upgrade/resolve.ts';
import { runUpgrade, type UpgradeOptions, type UpgradeResult } from '../upgrade/run-upgrade.ts';

export type { GovernedApiResource, GovernedApiResources, GovernedResourcesOf } from '../api-resources.ts';

/** Options of {@link createGovernedApi}; `R` is the `resources` option as written (it types `api.resources`). */
export interface GovernedApiOptions<R extends GovernedApiResources = GovernedApiResources>
  extends GovernedHttpOptions,
    Pick<GovernedServiceOptions, 'redaction' | 'audit' | 'metrics' | 'idempotency' | 'onEvent' | 'purgeDeletedAfterDays' | 'recordLimit'> {
  /** The storage every resource and the audit routes use. */
  storage: StorageDriver;
  /**
   * The resources, each an entity document or `{ entity, tier?, rollback?, plans?, resourceName?, deprecation?, recordLimit? }`:
   * a list, or an object whose keys are the path names (`{ projects: Project, tasks: Task }`),
   * which types `api.resources.projects` with the record type of `Project`.
   */
  resources: R;
  /** Serve `GET /v1/audit` and `GET /v1/audit/:auditId`. @default true */
  auditRoutes?: boolean;
  /** Serve the change feed `GET /v1/events` (docs/events.md). @default true */
  eventRoutes?: boolean;
  /** Caps of the change feed's long-poll waiters (docs/events.md, docs/security.md). */
  eventFeed?: EventFeedOptions;
  /**
   * Signed checkpoints and proofs of the verifiable audit log (docs/verifiable-history.md): serves
   * `GET /v1/audit/checkpoint`, `/v1/audit/proof`, `/v1/audit/{auditId}/proof` and `…/bundle`, and
   * signs a checkpoint after writes every `everyLeaves` leaves or `everySeconds` seconds.
   *
   * @example
   * createGovernedApi({ storage, auth, resources, log: { signer: await noteSigner(process.env.CELLGATE_LOG_SIGNING_KEY!), origin: 'audit.example.com' } });
   */
  log?: VerifiableLogOptions;
}

/** The handler of {@link createGovernedApi}, with its resources by path name. */
export interface GovernedApi<Resources = LooseGovernedResources> extends FetchHandler {
  /** Resources by path name (`customers`, `invoices`, …), typed when the names are written in the code. */
  readonly resources: Resources;
  /** Migrates the tables of every resource in one `storage.migrate(models)` call (idempotent); throws `MigrationRefusedError`, changing nothing, on drift (docs/storage.md#what-migrate-refuses). */
  migrate(): Promise<void>;
  /**
   * Access decisions for principals that are not requests: `access.eventFor(principal, event)` is
   * an event as a webhook subscription or an `onEvent` handler acting for those roles may see it
   * (docs/field-access.md). Pass it to `createWebhookDispatcher({ access })`.
   */
  readonly access: ApiAccess;
  /**
   * The OpenAPI 3.1 document of every resource (and the audit routes), also served at
   * `GET <basePath>/v1/openapi.json`. Merge it with the contract handler's document to show both
   * halves on one docs page.
   */
  openapi(): Record<string, unknown>;
  /**
   * Runs `fn` in one storage transaction across every resource: `tx.projects.create(input)`,
   * `tx.tasks.update(id, body)`, … (each resource's service with `context` bound). All or nothing:
   * when `fn` throws (a 409 of a stale `expectedVersion`, a rule's 422, your own error), nothing
   * is written and that error is thrown. Every audit record and event written inside carries one
   * `changeSetId`; events, `onEvent` and `afterCommit` run only after the commit. At most
   * `MAX_CHANGE_SET_WRITES` (500) record writes. Transactions do not nest: pass `tx` to helpers
   * (docs/entities.md#transactions, docs/decisions/B27.md).
   *
   * @example
   * await api.transaction(context, async (tx) => {
   *   const project = await tx.projects.create({ name: 'Launch' });
   *   await tx.tasks.create({ title: 'Plan', projectId: project.data.id });
   * });
   */
  transaction<T>(context: GovernedContext, fn: (tx: Transaction<Resources>) => Promise<T>): Promise<T>;
  /**
   * Copies every record of an older major to the newer one defined with `defineEntity(v2, { from: v1, up })`,
   * online: batches of `batchSize` (one transaction each, progress stored, so a killed run resumes),
   * passes until the newer major is in step with writes made meanwhile (`settled`), each copy's
   * history starting with an `entity.upgraded` audit record; `dryRun` lists the records `up` or the
   * newer schema refuses. Both majors must be served (docs/evolving-entities.md#majors-and-upgrades, B40).
   *
   * @example
   * const result = await api.upgrade('crm.invoice', { batchSize: 200, onProgress: (p) => console.log(p.read) });
   * result.settled; // true: every v1 record is in v2
   */
  upgrade(entityKey: string, options?: UpgradeOptions): Promise<UpgradeResult>;
}

/**
 * Mounts several governed resources and the audit routes as one handler. Requests that match none
 * of them resolve `undefined` from `match`, so the host's own routes can follow. Options are
 * checked by one strict schema: a misspelt one throws a {@link ConfigurationError} naming its path.
 *
 * @example createGovernedApi
 * import { readFileSync } from 'node:fs';
 * import { composeHandlers, createContractHandler, createGovernedApi, memoryStorage } from 'cellgate';
 *
 * const api = createGovernedApi({
 *   storage: memoryStorage(), // or sqliteStorage / postgresStorage: docs/storage.md
 *   auth: { secret: process.env.CELLGATE_JWT_SECRET },
 *   resources: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))],
 * });
 * await api.migrate();
 * export const handler = composeHandlers(createContractHandler(), api);
 */
export function createGovernedApi<const R extends GovernedApiResources>(options: GovernedApiOptions<R>): GovernedApi<GovernedResourcesOf<R>> {
  parseOptions(governedApiOptionsSchema, options);
  // `logger` stays in `http`: the pipeline reports failures to it and each resource's service logs writes to it.
  const {
    resources: entries,
    auditRoutes: withAudit = true,
    eventRoutes: withEvents = true,
    eventFeed,
    log,
    storage,
    redaction,
    audit,
    metrics,
    onEvent,
    purgeDeletedAfterDays,
    recordLimit,
    ...http
  } = options;
  const pipeline = pipelineOf(http, {}, storage);
  // Checkpoints are signed after writes once due: the resources write through a storage that reports commits (B36).
  const checkpoints = log === undefined ? undefined : createCheckpoints(storage, log, pipeline.logger);
  // One object for writers and the feed, whose waiters are found by storage.
  const store = checkpoints === undefined ? storage : withCheckpointTrigger(storage, checkpoints);
  const shared = {
    ...http,
    storage: store,
    ...(redaction === undefined ? {} : { redaction }),
    ...(audit === undefined ? {} : { audit }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(onEvent === undefined ? {} : { onEvent }),
    ...(purgeDeletedAfterDays === undefined ? {} : { purgeDeletedAfterDays }),
    ...(recordLimit === undefined ? {} : { recordLimit }),
  };
  const resources: Record<string, GovernedResource> = {};
  const routed: RoutedResource[] = [];
  const seen = new Map<string, string>();
  const labels: string[] = [];
  for (const { label, options: own } of apiResourceEntries(entries)) {
    let resource: GovernedResource;
    try {
      const built = buildGovernedResource({ ...shared, ...own }, pipeline);
      resource = built.resource;
      routed.push(built.routed);
    } catch (error) {
      if (error instanceof ConfigurationError) throw new ConfigurationError(`resources.${label}.${error.path}`, error.message.slice(error.path.length + 2));
      throw error;
    }
    const clash = seen.get(resource.paths.collection);
    if (clash !== undefined) throw new ConfigurationError(`resources.${label}`, `mounts ${resource.paths.collection}, already used by ${clash}.`);
    if (Object.hasOwn(resources, resource.resourceName)) {
      throw new ConfigurationError(`resources.${label}.resourceName`, `"${resource.resourceName}" is already used; set a distinct resourceName.`);
    }
    seen.set(resource.paths.collection, resource.model.resourceType);
    resources[resource.resourceName] = resource;
    labels.push(label);
  }
  // References name entities of this API: resolved now that every resource is built (docs/decisions/B29.md).
  linkReferences(
    routed.map(({ ctx }) => ctx),
    labels.map((label) => `resources.${label}.entity`),
  );
  const handlers = Object.values(resources);
  // Every resource reaches every other one in a transaction's tx and a rule's reader.
  const contexts = routed.map((entry) => entry.ctx);
  const own = contexts.flatMap((ctx) => ctx.peers.get(ctx.resourceName) ?? []);
  for (const ctx of contexts) for (const peer of own) ctx.peers.set(peer.ctx.resourceName, peer);
  const basePath = normalizeBasePath(http.basePath);
  // The log's routes are documented beside the operation table's (B36).
  const withLogRoutes = (document: Record<string, unknown>) => (checkpoints === undefined || !withAudit ? document : withLogPaths(document, basePath));
  const documents = callerDocuments(
    routed.map(({ ctx }) => ctx),
    (entities) =>
      withLogRoutes(
        buildGovernedOpenApi(
          routed.map(({ ctx }, index) => ({ entity: entities[index]!, resourceName: ctx.resourceName, rollbackEnabled: ctx.rollbackEnabled })),
          { basePath, audit: withAudit },
        ),
      ),
  );
  const openapi = (): Record<string, unknown> => documents.full();
  // One history reach for every history surface of this API: audit page, item, export and feed.
  const reach = historyReachPolicy(routed.map(({ ctx }) => ({ resourceType: ctx.resourceType, policy: ctx.policy, fields: ctx.fieldAccess })));
  const match = createGovernedRouter({
    basePath,
    resources: routed,
    audit: withAudit ? { storage, pipeline, reach } : undefined,
    openapi: { pipeline, document: documents.of },
  });
  // The change feed is one more path beside the operation table; a substring test keeps every
  // other request on the table's single parse.
  const feedPath = `${basePath}/v1/events`;
  const feed = withEvents ? eventFeedRoutes(store, pipeline, basePath, reach, feedWaiterLimits(eventFeed)) : undefined;
  const feedOrMatch: typeof match =
    feed === undefined ? match : async (request) => (request.url.includes(feedPath) ? ((await feed(request)) ?? match(request)) : match(request));
  // The log's routes sit under /v1/audit/ beside the operation table, as the feed does (B36).
  const logPath = `${basePath}/v1/audit/`;
  const logMatch = checkpoints === undefined || !withAudit ? undefined : logRoutes(storage, pipeline, basePath, reach, checkpoints);
  const all: typeof match =
    logMatch === undefined
      ? feedOrMatch
      : async (request) => (request.url.includes(logPath) ? ((await logMatch(request)) ?? feedOrMatch(request)) : feedOrMatch(request));
  // Reads may go to replicas, writes answer with their consistency token (B37).
  return Object.assign(createFetchHandler(withConsistency(storage, all)), {
    // Built from the same entries the type reads (keys and entity types), so the cast is what it says.
    resources: resources as GovernedResourcesOf<R>,
    openapi,
    access: apiAccess(reach),
    migrate: () => storage.migrate(handlers.map((resource) => resource.model)),
    // The bound services are built from the same resources the type reads, so the cast is what it says.
    transaction: <T>(context: GovernedContext, fn: (tx: Transaction<GovernedResourcesOf<R>>) => Promise<T>) =>
      runTransaction(storage, contexts, context, fn as (tx: Record<string, TransactionService>) => Promise<T>),
    upgrade: (entityKey: string, upgradeOptions?: UpgradeOptions) => {
      const { from, to, link } = resolveUpgrade(contexts, entityKey);
      return runUpgrade(from, to, link, upgradeOptions);
    },
  });
}
