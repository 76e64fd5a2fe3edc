/**
 * `createGovernedResource`: REST endpoints for one governed entity (docs/governed-conventions.md Area B) as a Fetch
 * handler, plus the programmatic service behind them. Unmatched requests fall through
 * (`handler.match` resolves `undefined`), so several resources and the host's own routes chain.
 */
import { resourcePathName, toStorageModel, type EntityTypes, type GeneralEntityTypes } from '../entity-document/index.ts';
import { ConfigurationError } from '../errors.ts';
import { isLogger, type Logger } from '../logging.ts';
import { DEFAULT_BODY_LIMIT } from '../http/body.ts';
import { RECORD_LIMIT_BODY_MULTIPLE } from '../limits.ts';
import { createFetchHandler, type FetchHandler } from '../http/handler.ts';
import type { EntityStorageModel, StorageDriver } from '../storage/types.ts';
import { createAuthenticator, type Authenticator } from './auth/verify.ts';
import type { AuthOptions } from './auth/options.ts';
import { deprecationHeaders, type DeprecationOptions } from './http/headers.ts';
import { checkResourceName, normalizeBasePath, resourcePatterns, type ResourcePatterns } from './http/paths.ts';
import type { GovernedHooks, Pipeline } from './http/pipeline.ts';
import type { ClientIpOptions } from './http/request-meta.ts';
import { createGovernedRouter, type RoutedResource } from './http/router.ts';
import { createRateLimiter, type RateLimiter, type RateLimitOptions } from './rate-limit.ts';
import type { GovernedLogger } from './metrics.ts';
import { createGovernedService, serviceContextOf } from './service.ts';
import { entityOf } from './service-context.ts';
import type { EntityOption, GovernedService, GovernedServiceOptions } from './service-types.ts';
import { governedResourceOptionsSchema } from './options-schema.ts';
import { linkReferences } from './relations/link.ts';
import { parseOptions } from '../validation/strict-options.ts';

/** Options shared by every resource of an API (see `createGovernedApi`). */
export interface GovernedHttpOptions extends ClientIpOptions {
  /**
   * Token verification (HS256 secret, public key or JWKS URL; issuer, audience, algorithms, clock
   * tolerance, `resolveActor`), or your own function from a request to an `Actor`.
   */
  auth: AuthOptions | Authenticator;
  /** Requests per window per tenant + actor; `false` or absent: unlimited. */
  rateLimit?: RateLimitOptions | RateLimiter | false;
  /** Prefix of every path, e.g. `/api` → `/api/v1/...`. @default "" */
  basePath?: string;
  /** Hooks before each operation and on each answer. */
  hooks?: GovernedHooks;
  /** Maximum JSON body size in bytes (413 beyond). @default 1048576 */
  bodyLimit?: number;
  /** Receives every unexpected failure (answered 500 `INTERNAL_ERROR` with the correlation id). */
  onError?: (error: unknown, request?: Request) => void;
  // --- logger (issue #12 item 12): a pino-style logger, or the older write-hook function ---------
  /**
   * A pino-style logger (`error`/`warn`/`info`/`debug` taking `(obj, msg?)`; a `pino()` logger
   * fits): one `info` entry per write, one `warn` per conflict (no field values), and one `error`
   * entry per unexpected failure (correlation id, method, path, `err`). A function instead
   * receives the write and conflict entries only. Without a logger object and without `onError`,
   * unexpected failures are written as one JSON line each to stderr.
   * @default writes silent; failures as JSON lines on stderr
   */
  logger?: Logger | GovernedLogger;
}

/**
 * Options of {@link createGovernedResource}: the service options (storage, tier, redaction,
 * audit, rollback, plans, metrics, logger, idempotency, resourceName) plus the HTTP ones.
 */
export interface GovernedResourceOptions<T extends EntityTypes = GeneralEntityTypes>
  extends Omit<GovernedServiceOptions<T>, 'entity' | 'logger'>,
    GovernedHttpOptions {
  /**
   * The entity: `defineEntity(...)` (records typed from the document), a document written in
   * code, or one loaded at run time such as a JSON import (checked here, general record type).
   */
  entity: EntityOption<T>;
  /** Mark the endpoints deprecated: `Deprecation: true` plus `Sunset` / `Link` when given. */
  deprecation?: DeprecationOptions | boolean;
}

/** A mounted governed resource: a Fetch handler with its service and storage model. */
export interface GovernedResource<T extends EntityTypes = GeneralEntityTypes> extends FetchHandler {
  /** The programmatic service (create/get/list/update/delete/rollback/history/versions) used by the routes. */
  readonly service: GovernedService<T>;
  /** What the storage driver stores for this entity: the same object as `service.model`. */
  readonly model: EntityStorageModel;
  /** The path name, e.g. `invoices`. */
  readonly resourceName: string;
  /** The route patterns, e.g. `/v1/workspaces/:workspaceId/cells/:cellId/invoices`. */
  readonly paths: ResourcePatterns;
  /** Creates the tables of this entity (idempotent): `storage.migrate([model])`; throws `MigrationRefusedError`, changing nothing, on drift. */
  migrate(): Promise<void>;
}

/** Builds the authenticator of an `auth` option. */
export function authenticatorOf(auth: AuthOptions | Authenticator | undefined): Authenticator {
  if (auth === undefined) throw new ConfigurationError('auth', 'is required: give { secret }, { publicKey }, { jwksUrl } or a function.');
  return typeof auth === 'function' ? auth : createAuthenticator(auth);
}

/** Builds the limiter of a `rateLimit` option (undefined when off). */
export function limiterOf(option: RateLimitOptions | RateLimiter | false | undefined, storage?: StorageDriver): RateLimiter | undefined {
  if (!option) return undefined;
  // Counted in shared storage by default, so processes sharing a database share the limit.
  return typeof option === 'function' ? option : createRateLimiter(option, 'rateLimit', storage?.rateLimitStore);
}

/** The shared parts of the pipeline, resolved once (an API resolves them once for all its resources). */
export function pipelineOf(options: GovernedHttpOptions, headers: Record<string, string> = {}, storage?: StorageDriver): Pipeline {
  if (options.logger !== undefined && typeof options.logger !== 'function' && !isLogger(options.logger)) {
    throw new ConfigurationError('logger', 'must be a pino-style logger (error, warn, info, debug methods) or a function.');
  }
  return {
    authenticate: authenticatorOf(options.auth),
    limiter: limiterOf(options.rateLimit, storage),
    headers,
    hooks: options.hooks,
    onError: options.onError,
    logger: isLogger(options.logger) ? options.logger : undefined,
    ...(options.ip === undefined ? {} : { ip: options.ip }),
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
  };
}

/** Checks `bodyLimit`. */
export function bodyLimitOf(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_BODY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new ConfigurationError('bodyLimit', 'must be a positive integer (bytes).');
  return limit;
}

/** A built resource with what a router needs to serve it. */
export interface BuiltResource {
  resource: GovernedResource;
  routed: RoutedResource;
}

/**
 * @internal Builds a resource on an already-resolved pipeline (shared by `createGovernedApi`): the
 * entity is checked and the storage model built once, and the resource, its service and its
 * router share them.
 */
export function buildGovernedResource(options: GovernedResourceOptions, shared: Pipeline): BuiltResource {
  if (options.storage === undefined) throw new ConfigurationError('storage', 'is required, e.g. memoryStorage().');
  const entity = entityOf(options.entity);
  const resourceName = checkResourceName(options.resourceName ?? resourcePathName(entity.name), entity.scope);
  const { deprecation, basePath, bodyLimit, ...rest } = options;
  const limit = bodyLimitOf(bodyLimit);
  // A record may take a few bodies' worth of JSON: four times the body limit unless set.
  const recordLimit = rest.recordLimit ?? RECORD_LIMIT_BODY_MULTIPLE * limit;
  const service = createGovernedService({ ...pickServiceOptions(rest), entity, resourceName, recordLimit }, toStorageModel(entity));
  const base = normalizeBasePath(basePath);
  const paths = resourcePatterns(entity.scope, resourceName, base);
  const routed: RoutedResource = {
    ctx: serviceContextOf(service),
    pipeline: { ...shared, headers: { ...shared.headers, ...deprecationHeaders(deprecation) } },
    bodyLimit: limit,
  };
  const match = createGovernedRouter({ basePath: base, resources: [routed] });
  const resource = Object.assign(createFetchHandler(match), {
    service,
    model: service.model,
    resourceName,
    paths,
    migrate: () => options.storage.migrate([service.model]),
  });
  return { resource, routed };
}

function pickServiceOptions(options: Omit<GovernedResourceOptions, 'entity'>): Omit<GovernedServiceOptions, 'entity'> {
  const { storage, tier, redaction, audit, rollback, plans, metrics, logger, idempotency, onEvent, purgeDeletedAfterDays, rules } = options;
  return {
    storage,
    ...(tier === undefined ? {} : { tier }),
    ...(redaction === undefined ? {} : { redaction }),
    ...(audit === undefined ? {} : { audit }),
    ...(rollback === undefined ? {} : { rollback }),
    ...(plans === undefined ? {} : { plans }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(logger === undefined ? {} : { logger: writeLoggerOf(logger) }),
    ...(idempotency === undefined ? {} : { idempotency }),
    ...(onEvent === undefined ? {} : { onEvent }),
    ...(purgeDeletedAfterDays === undefined ? {} : { purgeDeletedAfterDays }),
    ...(rules === undefined ? {} : { rules }),
  };
}

/** The service's write hook for a `logger` option: a function as it is, a logger's `info`/`warn` otherwise. */
function writeLoggerOf(logger: Logger | GovernedLogger): GovernedLogger {
  if (!isLogger(logger)) return logger;
  // The level is the method called; kept in the object it would overwrite the logger's own `level`.
  return ({ level, ...rest }) => logger[level](rest, rest.event);
}

/**
 * Mounts one governed entity: REST routes by scope under `/v1` (docs/governed-conventions.md Area B), JWT auth,
 * optimistic concurrency, soft delete, audit, rollback, rate limiting. Throws a
 * {@link ConfigurationError} on a bad entity document or option, a misspelt option name included
 * (one strict schema, the path and the closest known name in the message).
 *
 * @example createGovernedResource
 * import { readFileSync } from 'node:fs';
 * import { createGovernedResource, loadEntity, memoryStorage } from 'cellgate';
 *
 * const customers = createGovernedResource({
 *   entity: loadEntity(JSON.parse(readFileSync('./customer.entity.json', 'utf8'))),
 *   storage: memoryStorage(),
 *   auth: { secret: process.env.CELLGATE_JWT_SECRET },
 * });
 * await customers.migrate();
 * // GET/POST /v1/workspaces/:workspaceId/customers, GET/PATCH/DELETE …/customers/:id, …/:id/versions
 * export const response = await customers(new Request('http://localhost/v1/workspaces/00000000-0000-4000-8000-000000000002/customers'));
 */
export function createGovernedResource<T extends EntityTypes = GeneralEntityTypes>(options: GovernedResourceOptions<T>): GovernedResource<T> {
  parseOptions(governedResourceOptionsSchema, options);
  // The service is built from the checked entity, so its answers have the types the document declares.
  const built = buildGovernedResource(options as GovernedResourceOptions, pipelineOf(options, {}, options.storage));
  // On its own, a resource can only reference itself; references to other entities need createGovernedApi.
  linkReferences([built.routed.ctx], ['entity']);
  return built.resource as unknown as GovernedResource<T>;
}
