/**
 * The governed demo resources of the reference host (docs/reference-host.md): customers, invoices and
 * activity events from the entity documents in `entities/` beside this
 * module (the same documents as the repository's `examples/entities/`, checked by a test), the `/v1/audit` routes, the
 * change feed `/v1/events` (customers and invoices emit events; activity events are tier-3), an
 * optional webhook from `CELLGATE_WEBHOOK_URL` / `CELLGATE_WEBHOOK_SECRET`,
 * `GET /metrics`, and token verification from the `CELLGATE_JWT_*` variables. Without a secret or
 * key it runs in dev mode: a secret is generated for the run and a ready-to-paste token printed.
 */
import { importJWK, importSPKI, type JWK } from 'jose';
import {
  ConfigurationError,
  createFetchHandler,
  createGovernedApi,
  createMetricsRegistry,
  createWebhookDispatcher,
  memoryStorage,
  signDevToken,
  type AuthOptions,
  type EntityDocumentInput,
  type FetchHandler,
  type GovernedApi,
  type Logger,
  type OpenApiDocument,
  type StorageDriver,
  type WebhookTargetAllowance,
} from 'cellgate';
import { lifecycleFromEnv, schedulePurge } from './purge.ts';
import { logSignerFromEnv } from './log-key.ts';

type Env = Readonly<Record<string, string | undefined>>;

// Imported, not read from disk at run time: the built `cellgate/host` entry and the `cellgate` bin
// bundle this host, and the documents travel inside the bundle. `examples/entities/` keeps the
// same documents for readers of the repository; a packaging test keeps the two copies identical.
import activityEvent from './entities/activity-event.entity.json' with { type: 'json' };
import customer from './entities/customer.entity.json' with { type: 'json' };
import invoice from './entities/invoice.entity.json' with { type: 'json' };

/** The entity documents served by the host (`entities/` beside this module). */
export const DEMO_ENTITY_FILES = ['customer.entity.json', 'invoice.entity.json', 'activity-event.entity.json'] as const;

const DEMO_ENTITIES: Record<(typeof DEMO_ENTITY_FILES)[number], unknown> = {
  'customer.entity.json': customer,
  'invoice.entity.json': invoice,
  'activity-event.entity.json': activityEvent,
};

/** Ids used by the dev-mode demo token and the banner's curl line. */
export const DEMO_IDS = {
  tenant: '00000000-0000-4000-8000-000000000001',
  workspace: '00000000-0000-4000-8000-000000000002',
  cell: '00000000-0000-4000-8000-000000000003',
  actor: '00000000-0000-4000-8000-000000000004',
} as const;

/** One demo entity document, a fresh copy (validated by `defineEntity` when the API is built). */
export function loadDemoEntity(file: (typeof DEMO_ENTITY_FILES)[number]): EntityDocumentInput {
  return structuredClone(DEMO_ENTITIES[file]) as EntityDocumentInput;
}

/** Token settings from the environment; `devSecret` is set when none was given (dev mode). */
export function authFromEnv(env: Env): { auth: AuthOptions; devSecret?: string } {
  const secret = env.CELLGATE_JWT_SECRET?.trim() || undefined;
  const publicKey = env.CELLGATE_JWT_PUBLIC_KEY?.trim() || undefined;
  const jwksUrl = env.CELLGATE_JWKS_URL?.trim() || undefined;
  const given = [secret && 'CELLGATE_JWT_SECRET', publicKey && 'CELLGATE_JWT_PUBLIC_KEY', jwksUrl && 'CELLGATE_JWKS_URL'].filter(Boolean);
  if (given.length > 1) throw new ConfigurationError(given.join(', '), 'set only one of them.');
  const checks = {
    ...(env.CELLGATE_JWT_ISSUER ? { issuer: env.CELLGATE_JWT_ISSUER } : {}),
    ...(env.CELLGATE_JWT_AUDIENCE ? { audience: env.CELLGATE_JWT_AUDIENCE } : {}),
  };
  if (secret !== undefined) {
    if (new TextEncoder().encode(secret).byteLength < 32) throw new ConfigurationError('CELLGATE_JWT_SECRET', 'must be at least 32 bytes.');
    return { auth: { secret, ...checks } };
  }
  if (publicKey !== undefined) {
    if (!publicKey.includes('-----BEGIN PUBLIC KEY-----') && !publicKey.startsWith('{')) {
      throw new ConfigurationError('CELLGATE_JWT_PUBLIC_KEY', 'must be a PEM public key (-----BEGIN PUBLIC KEY-----) or a JWK in JSON.');
    }
    return { auth: { publicKey: publicKey.replace(/\\n/g, '\n'), ...checks } };
  }
  if (jwksUrl !== undefined) {
    if (!/^https?:\/\//.test(jwksUrl) || !URL.canParse(jwksUrl)) throw new ConfigurationError('CELLGATE_JWKS_URL', `must be an http(s) URL, got "${jwksUrl}".`);
    return { auth: { jwksUrl, ...checks } };
  }
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const devSecret = btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, (c) => ({ '+': '-', '/': '_', '=': '' })[c]!);
  return { auth: { secret: devSecret, ...checks }, devSecret };
}

/**
 * Imports `CELLGATE_JWT_PUBLIC_KEY` once at start-up, so a key that is no key fails the start with
 * one line instead of refusing every token later.
 */
export async function checkPublicKey(publicKey: string): Promise<void> {
  const attempts = publicKey.startsWith('{')
    ? [async () => importJWK(JSON.parse(publicKey) as JWK, (JSON.parse(publicKey) as JWK).alg ?? 'RS256')]
    : ['RS256', 'ES256', 'ES384', 'EdDSA'].map((alg) => () => importSPKI(publicKey, alg));
  for (const attempt of attempts) {
    try {
      await attempt();
      return;
    } catch {
      // Try the next algorithm family.
    }
  }
  throw new ConfigurationError('CELLGATE_JWT_PUBLIC_KEY', 'is not a usable public key (PEM SPKI or JWK).');
}

/** `CELLGATE_RATE_LIMIT`: requests per minute per tenant + actor, `0` = off. */
export function rateLimitFromEnv(env: Env): number {
  const raw = env.CELLGATE_RATE_LIMIT?.trim();
  if (raw === undefined || raw === '') return 0;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new ConfigurationError('CELLGATE_RATE_LIMIT', `must be a whole number of requests per minute (0 = off), got "${raw}".`);
  }
  return Number(raw);
}

/**
 * `CELLGATE_AUDIT_HASH_SECRET`: the key of the audit hashes of free-text fields (`redact: "hash"`).
 * Hosts that share a database must share it for hashes to compare across processes and restarts;
 * unset, each run draws its own (fine for a demo, noted in the banner).
 */
export function auditHashSecretFromEnv(env: Env): string | undefined {
  const secret = env.CELLGATE_AUDIT_HASH_SECRET?.trim() || undefined;
  if (secret !== undefined && new TextEncoder().encode(secret).byteLength < 32) {
    throw new ConfigurationError('CELLGATE_AUDIT_HASH_SECRET', 'must be at least 32 bytes.');
  }
  return secret;
}

/**
 * `CELLGATE_WEBHOOK_ALLOW`: non-public webhook targets to allow, a comma list of `loopback` and
 * `private` (development: a receiver on this machine or network). Unset: public addresses only.
 */
export function webhookAllowanceFromEnv(env: Env): WebhookTargetAllowance {
  const allow: WebhookTargetAllowance = {};
  for (const part of (env.CELLGATE_WEBHOOK_ALLOW ?? '').split(',')) {
    const name = part.trim();
    if (name === 'loopback') allow.loopback = true;
    else if (name === 'private') allow.privateNetworks = true;
    else if (name !== '') throw new ConfigurationError('CELLGATE_WEBHOOK_ALLOW', `must list loopback and/or private, not "${name.slice(0, 40)}".`);
  }
  return allow;
}

/**
 * `CELLGATE_WEBHOOK_URL` + `CELLGATE_WEBHOOK_SECRET` (`whsec_…`): one webhook subscription receiving
 * every event of the demo resources. Both or neither.
 */
export function webhookFromEnv(env: Env): { url: string; secret: string } | undefined {
  const url = env.CELLGATE_WEBHOOK_URL?.trim() || undefined;
  const secret = env.CELLGATE_WEBHOOK_SECRET?.trim() || undefined;
  if (url === undefined && secret === undefined) return undefined;
  if (url === undefined || secret === undefined)
    throw new ConfigurationError(
      url === undefined ? 'CELLGATE_WEBHOOK_URL' : 'CELLGATE_WEBHOOK_SECRET',
      'is needed too: set both webhook variables or neither.',
    );
  return { url, secret };
}

/** What the host mounts: the handlers, banner lines, and a close function. */
export interface DemoResources {
  handlers: FetchHandler[];
  banner: string[];
  close: () => Promise<void>;
  /** The governed API (resources by name, `migrate()`). */
  api: GovernedApi;
}

/** Options of {@link createDemoResources}. */
export interface DemoResourceOptions {
  env: Env;
  /** The opened storage. @default `memoryStorage()` when `DATABASE_URL` is `memory:` or unset (closed by `close()`) */
  storage?: StorageDriver;
  /** A pino-style logger for failures, writes and conflicts (docs/observability.md). @default failures as JSON lines on stderr */
  logger?: Logger | undefined;
}

function devBanner(env: Env, token: string): string[] {
  const port = env.PORT && env.PORT !== '0' ? env.PORT : env.PORT === '0' ? '<port>' : '3000';
  const url = `http://${env.HOST || '127.0.0.1'}:${port}`;
  return [
    'dev mode      CELLGATE_JWT_SECRET not set: a secret was generated for this run',
    `demo token    tenant ${DEMO_IDS.tenant}, tenant-wide admin, workspace ${DEMO_IDS.workspace}, cell ${DEMO_IDS.cell}; audit:read, audit:restore (12 h)`,
    `              ${token}`,
    `try           curl -H "Authorization: Bearer ${token}" ${url}/v1/workspaces/${DEMO_IDS.workspace}/customers`,
  ];
}

/**
 * Mounts the three demo resources, `/v1/audit` and `/metrics` on `storage` (migrated here).
 * Throws a `ConfigurationError` with a one-line message on a bad variable.
 *
 * @example
 * const demo = await createDemoResources({ env: process.env, storage });
 * const handler = composeHandlers(contract, ...demo.handlers);
 */
export async function createDemoResources(options: DemoResourceOptions): Promise<DemoResources> {
  const { env } = options;
  const { auth, devSecret } = authFromEnv(env);
  if (typeof auth.publicKey === 'string') await checkPublicKey(auth.publicKey);
  const perMinute = rateLimitFromEnv(env);
  const hashSecret = auditHashSecretFromEnv(env);
  const ownsStorage = options.storage === undefined;
  const databaseUrl = env.DATABASE_URL?.trim() || 'memory:';
  if (ownsStorage && databaseUrl !== 'memory:') {
    throw new ConfigurationError('DATABASE_URL', `"${databaseUrl}" needs a storage driver passed as \`storage\`; use DATABASE_URL=memory: without one.`);
  }
  const storage = options.storage ?? memoryStorage();
  const metrics = createMetricsRegistry();
  const lifecycle = lifecycleFromEnv(env);
  const logKey = await logSignerFromEnv(env);
  const api = createGovernedApi({
    storage,
    // The verifiable log's checkpoints and proofs (docs/verifiable-history.md).
    log: { signer: logKey.signer, origin: 'cellgate.local/audit' },
    ...lifecycle,
    auth,
    metrics,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(hashSecret === undefined ? {} : { redaction: { hashSecret } }),
    ...(perMinute > 0 ? { rateLimit: { limit: perMinute, windowMs: 60_000 } } : {}),
    // `cellgate serve --entity <file>` hands the user's documents over as JSON in CELLGATE_ENTITIES.
    resources: env.CELLGATE_ENTITIES ? (JSON.parse(env.CELLGATE_ENTITIES) as EntityDocumentInput[]) : DEMO_ENTITY_FILES.map(loadDemoEntity),
  });
  await api.migrate();
  const webhook = webhookFromEnv(env);
  const dispatcher =
    webhook === undefined
      ? undefined
      : createWebhookDispatcher({
          storage,
          metrics,
          subscriptions: [{ id: 'reference-host', ...webhook, principal: 'unrestricted' }],
          allowTargets: webhookAllowanceFromEnv(env),
        });
  dispatcher?.start();
  const stopPurge = schedulePurge(api, env);
  const metricsRoute = createFetchHandler(async (request) => {
    if (new URL(request.url).pathname !== '/metrics') return undefined;
    if (request.method !== 'GET') return undefined;
    return new Response(metrics.render(), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } });
  });
  const banner = [
    env.CELLGATE_ENTITIES
      ? `governed      ${Object.values(api.resources)
          .map((resource) => resource.paths.collection)
          .join(', ')}`
      : `governed      /v1/workspaces/:workspaceId/customers, /v1/workspaces/:workspaceId/cells/:cellId/invoices, /v1/activity-events`,
    'audit         /v1/audit, /v1/audit/:auditId, …/:id/versions',
    'audit log     /v1/audit/checkpoint, /v1/audit/proof?from&to, /v1/audit/:auditId/proof, /v1/audit/:auditId/bundle',
    logKey.banner,
    'events        /v1/events (change feed: ?after=<cursor>&resourceType&workspaceId&limit&wait=<seconds>)',
    ...(webhook === undefined ? [] : [`webhook       ${webhook.url} (every event, Standard Webhooks signatures)`]),
    'metrics       /metrics',
    ...(ownsStorage ? ['storage       memory: (in-process; data is lost on exit)'] : []),
    ...(hashSecret === undefined ? ['audit hash    per-run key: set CELLGATE_AUDIT_HASH_SECRET for hashes that compare across restarts'] : []),
    ...(env.CELLGATE_PURGE_INTERVAL_MS && env.CELLGATE_PURGE_INTERVAL_MS.trim() !== '0'
      ? [`purge         every ${env.CELLGATE_PURGE_INTERVAL_MS.trim()} ms (retention and soft-delete purge, docs/lifecycle.md)`]
      : []),
    ...(perMinute > 0 ? [`rate limit    ${perMinute} requests per minute per tenant + actor`] : []),
  ];
  if (devSecret !== undefined) {
    const token = await signDevToken({
      secret: devSecret,
      tenantId: DEMO_IDS.tenant,
      sub: DEMO_IDS.actor,
      workspaces: { [DEMO_IDS.workspace]: ['admin'] },
      roles: ['admin'],
      permissions: ['audit:read', 'audit:restore', 'crm.customers.read', 'crm.invoices.read', 'ops.activity-events.read'],
      ...(env.CELLGATE_JWT_ISSUER ? { issuer: env.CELLGATE_JWT_ISSUER } : {}),
      ...(env.CELLGATE_JWT_AUDIENCE ? { audience: env.CELLGATE_JWT_AUDIENCE } : {}),
      expiresIn: '12h',
    });
    banner.push(...devBanner(env, token));
  }
  return {
    handlers: [api, metricsRoute],
    banner,
    api,
    close: async () => {
      await dispatcher?.stop();
      await stopPurge();
      if (ownsStorage) await storage.close();
    },
  };
}

/** The parts of an OpenAPI document {@link mergeOpenApi} combines. */
type OpenApiParts = OpenApiDocument & { paths?: Record<string, unknown>; tags?: unknown[]; components?: Record<string, Record<string, unknown>> };

/**
 * One OpenAPI document for both halves: the contract API's document with the governed paths,
 * tags, schemas and bearer security added (on a shared schema name the contract's is kept: both
 * describe the same error envelope). The reference app passes it to the contract handler as
 * `docs.extendOpenApi`, so `/api/openapi.json` and `/api/docs` show both halves.
 */
export function mergeOpenApi(contract: OpenApiDocument, governed: OpenApiDocument): OpenApiDocument {
  const own = contract as OpenApiParts;
  const added = governed as OpenApiParts;
  const components: Record<string, Record<string, unknown>> = { ...own.components };
  for (const [kind, entries] of Object.entries(added.components ?? {})) components[kind] = { ...entries, ...components[kind] };
  return {
    ...own,
    info: {
      ...(own.info as object),
      description: `${(own.info as { description?: string }).description ?? ''}\n\nGoverned resources: ${(added.info as { description?: string }).description ?? ''}`,
    },
    tags: [...(own.tags ?? []), ...(added.tags ?? [])],
    paths: { ...own.paths, ...added.paths },
    components,
  };
}
