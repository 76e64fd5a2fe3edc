/**
 * `createGovernedApi`: several governed resources and the `/v1/audit` routes as one Fetch handler,
 * sharing storage, token verification and one rate limiter (so a limit counts a caller across
 * every resource).
 */
import { ConfigurationError } from '../../errors.ts';
import { composeHandlers, type FetchHandler } from '../../http/handler.ts';
import { createFetchHandler } from '../../http/handler.ts';
import type { StorageDriver } from '../../storage/types.ts';
import {
  buildGovernedResource,
  pipelineOf,
  type GovernedHttpOptions,
  type GovernedResource,
  type GovernedResourceOptions,
} from '../create-governed-resource.ts';
import type { GovernedServiceOptions } from '../service-types.ts';
import { eventFeedRoutes } from '../events/feed-route.ts';
import { auditRoutes } from './audit-routes.ts';
import { normalizeBasePath } from './paths.ts';

/** One resource of an API: an entity document, or per-resource options around one. */
export type GovernedApiResource =
  | GovernedResourceOptions['entity']
  | (Omit<GovernedResourceOptions, keyof GovernedHttpOptions | 'storage'> & { entity: GovernedResourceOptions['entity'] });

/** Options of {@link createGovernedApi}. */
export interface GovernedApiOptions
  extends GovernedHttpOptions,
    Pick<GovernedServiceOptions, 'redaction' | 'audit' | 'metrics' | 'logger' | 'idempotency' | 'onEvent'> {
  /** The storage every resource and the audit routes use. */
  storage: StorageDriver;
  /** The resources, each an entity document or `{ entity, tier?, rollback?, plans?, resourceName?, deprecation? }`. */
  resources: readonly GovernedApiResource[];
  /** Serve `GET /v1/audit` and `GET /v1/audit/:auditId`. @default true */
  auditRoutes?: boolean;
  /** Serve the change feed `GET /v1/events` (docs/events.md). @default true */
  eventRoutes?: boolean;
}

/** The handler of {@link createGovernedApi}, with its resources by path name. */
export interface GovernedApi extends FetchHandler {
  /** Resources by path name (`customers`, `invoices`, …). */
  readonly resources: Readonly<Record<string, GovernedResource>>;
  /** Migrates the tables of every resource in one `storage.migrate(models)` call (idempotent). */
  migrate(): Promise<void>;
}

const isWrapped = (resource: GovernedApiResource): resource is Extract<GovernedApiResource, { entity: unknown }> =>
  typeof resource === 'object' && resource !== null && 'entity' in resource && !('$schema' in resource);

/**
 * Mounts several governed resources and the audit routes as one handler. Requests that match none
 * of them resolve `undefined` from `match`, so the host's own routes can follow.
 *
 * @example
 * const api = createGovernedApi({ storage, auth: { secret }, resources: [customerDoc, { entity: invoiceDoc, rollback: false }] });
 * await api.migrate();
 * const handler = composeHandlers(createContractHandler(), api);
 */
export function createGovernedApi(options: GovernedApiOptions): GovernedApi {
  const { resources: entries, auditRoutes: withAudit = true, eventRoutes: withEvents = true, storage, redaction, audit, metrics, logger, onEvent, ...http } = options;
  if (storage === undefined) throw new ConfigurationError('storage', 'is required, e.g. memoryStorage().');
  if (!Array.isArray(entries) || entries.length === 0) throw new ConfigurationError('resources', 'must list at least one entity.');
  const pipeline = pipelineOf(http);
  const shared = {
    ...http,
    storage,
    ...(redaction === undefined ? {} : { redaction }),
    ...(audit === undefined ? {} : { audit }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(logger === undefined ? {} : { logger }),
    ...(onEvent === undefined ? {} : { onEvent }),
  };
  const resources: Record<string, GovernedResource> = {};
  const seen = new Map<string, string>();
  entries.forEach((entry, index) => {
    const own = isWrapped(entry) ? entry : { entity: entry };
    let resource: GovernedResource;
    try {
      resource = buildGovernedResource({ ...shared, ...own }, pipeline);
    } catch (error) {
      if (error instanceof ConfigurationError) throw new ConfigurationError(`resources.${index}.${error.path}`, error.message.slice(error.path.length + 2));
      throw error;
    }
    const clash = seen.get(resource.paths.collection);
    if (clash !== undefined) throw new ConfigurationError(`resources.${index}`, `mounts ${resource.paths.collection}, already used by ${clash}.`);
    if (Object.hasOwn(resources, resource.resourceName)) {
      throw new ConfigurationError(`resources.${index}.resourceName`, `"${resource.resourceName}" is already used; set a distinct resourceName.`);
    }
    seen.set(resource.paths.collection, resource.model.resourceType);
    resources[resource.resourceName] = resource;
  });
  const handlers = Object.values(resources);
  const basePath = normalizeBasePath(http.basePath);
  const all: FetchHandler[] = [
    ...handlers,
    ...(withAudit ? [createFetchHandler(auditRoutes(storage, pipeline, basePath))] : []),
    ...(withEvents ? [createFetchHandler(eventFeedRoutes(storage, pipeline, basePath))] : []),
  ];
  return Object.assign(composeHandlers(...all), {
    resources,
    migrate: () => storage.migrate(handlers.map((resource) => resource.model)),
  });
}
