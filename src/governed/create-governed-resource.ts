/**
 * `createGovernedResource`: REST endpoints for one governed entity (SEED.md Area B) as a Fetch
 * handler, plus the programmatic service behind them. Unmatched requests fall through
 * (`handler.match` resolves `undefined`), so several resources and the host's own routes chain.
 */
import { defineEntity, toStorageModel, resourcePathName, type EntityDefinitionDocument, type EntityDocumentInput } from '../contract/entity-document/index.ts';
import { ConfigurationError } from '../errors.ts';
import { DEFAULT_BODY_LIMIT } from '../http/body.ts';
import { createFetchHandler, type FetchHandler } from '../http/handler.ts';
import type { EntityStorageModel } from '../storage/types.ts';
import { createAuthenticator, type Authenticator } from './auth/verify.ts';
import type { AuthOptions } from './auth/options.ts';
import { deprecationHeaders, type DeprecationOptions } from './http/headers.ts';
import { checkResourceName, normalizeBasePath, resourcePatterns, type ResourcePatterns } from './http/paths.ts';
import type { GovernedHooks, Pipeline } from './http/pipeline.ts';
import { createListQueryParser } from './http/query.ts';
import type { ClientIpOptions } from './http/request-meta.ts';
import { resourceRoutes } from './http/resource-routes.ts';
import { createRateLimiter, type RateLimiter, type RateLimitOptions } from './rate-limit.ts';
import { createGovernedService } from './service.ts';
import type { GovernedService, GovernedServiceOptions } from './service-types.ts';

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
}

/**
 * Options of {@link createGovernedResource}: the service options (storage, tier, redaction,
 * audit, rollback, plans, metrics, logger, idempotency, resourceName) plus the HTTP ones.
 */
export interface GovernedResourceOptions extends Omit<GovernedServiceOptions, 'entity'>, GovernedHttpOptions {
  /** The entity definition document, from `defineEntity(...)` or as written (validated here). */
  entity: EntityDefinitionDocument | EntityDocumentInput;
  /** Mark the endpoints deprecated: `Deprecation: true` plus `Sunset` / `Link` when given. */
  deprecation?: DeprecationOptions | boolean;
}

/** A mounted governed resource: a Fetch handler with its service and storage model. */
export interface GovernedResource extends FetchHandler {
  /** The programmatic service (create/get/list/update/delete/rollback/history/versions) used by the routes. */
  readonly service: GovernedService;
  /** What the storage driver stores for this entity. */
  readonly model: EntityStorageModel;
  /** The path name, e.g. `invoices`. */
  readonly resourceName: string;
  /** The route patterns, e.g. `/v1/workspaces/:workspaceId/cells/:cellId/invoices`. */
  readonly paths: ResourcePatterns;
  /** Creates the tables of this entity (idempotent): `storage.migrate([model])`. */
  migrate(): Promise<void>;
}

/** Builds the authenticator of an `auth` option. */
export function authenticatorOf(auth: AuthOptions | Authenticator | undefined): Authenticator {
  if (auth === undefined) throw new ConfigurationError('auth', 'is required: give { secret }, { publicKey }, { jwksUrl } or a function.');
  return typeof auth === 'function' ? auth : createAuthenticator(auth);
}

/** Builds the limiter of a `rateLimit` option (undefined when off). */
export function limiterOf(option: RateLimitOptions | RateLimiter | false | undefined): RateLimiter | undefined {
  if (!option) return undefined;
  return typeof option === 'function' ? option : createRateLimiter(option);
}

/** The shared parts of the pipeline, resolved once (an API resolves them once for all its resources). */
export function pipelineOf(options: GovernedHttpOptions, headers: Record<string, string> = {}): Pipeline {
  return {
    authenticate: authenticatorOf(options.auth),
    limiter: limiterOf(options.rateLimit),
    headers,
    hooks: options.hooks,
    onError: options.onError,
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

/** @internal Builds a resource on an already-resolved pipeline (shared by `createGovernedApi`). */
export function buildGovernedResource(options: GovernedResourceOptions, shared: Pipeline): GovernedResource {
  if (options.storage === undefined) throw new ConfigurationError('storage', 'is required, e.g. memoryStorage().');
  const entity = defineEntity(options.entity as EntityDocumentInput);
  const resourceName = checkResourceName(options.resourceName ?? resourcePathName(entity.name), entity.scope);
  const { deprecation, basePath, bodyLimit, ...rest } = options;
  const service = createGovernedService({
    ...pickServiceOptions(rest),
    entity,
    resourceName,
  });
  const model = toStorageModel(entity);
  const paths = resourcePatterns(entity.scope, resourceName, normalizeBasePath(basePath));
  const headers = { ...shared.headers, ...deprecationHeaders(deprecation) };
  const match = resourceRoutes({
    service,
    patterns: paths,
    parseList: createListQueryParser(entity),
    pipeline: { ...shared, headers },
    bodyLimit: bodyLimitOf(bodyLimit),
  });
  return Object.assign(createFetchHandler(match), {
    service,
    model,
    resourceName,
    paths,
    migrate: () => options.storage.migrate([model]),
  });
}

function pickServiceOptions(options: Omit<GovernedResourceOptions, 'entity'>): Omit<GovernedServiceOptions, 'entity'> {
  const { storage, tier, redaction, audit, rollback, plans, metrics, logger, idempotency, onEvent } = options;
  return {
    storage,
    ...(tier === undefined ? {} : { tier }),
    ...(redaction === undefined ? {} : { redaction }),
    ...(audit === undefined ? {} : { audit }),
    ...(rollback === undefined ? {} : { rollback }),
    ...(plans === undefined ? {} : { plans }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(logger === undefined ? {} : { logger }),
    ...(idempotency === undefined ? {} : { idempotency }),
    ...(onEvent === undefined ? {} : { onEvent }),
  };
}

/**
 * Mounts one governed entity: REST routes by scope under `/v1` (SEED.md Area B), JWT auth,
 * optimistic concurrency, soft delete, audit, rollback, rate limiting. Throws a
 * {@link ConfigurationError} on a bad entity document or option.
 *
 * @example
 * const customers = createGovernedResource({ entity: defineEntity(customerDoc), storage, auth: { secret } });
 * await customers.migrate();
 * // GET/POST /v1/workspaces/:workspaceId/customers, GET/PATCH/DELETE …/customers/:id, …/:id/rollback, …/:id/versions
 * const response = await customers(request); // or customers.match(request) → undefined when not its path
 */
export function createGovernedResource(options: GovernedResourceOptions): GovernedResource {
  return buildGovernedResource(options, pipelineOf(options));
}
