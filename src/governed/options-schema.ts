/**
 * The one strict schema of the governed factories' options (`createGovernedResource`,
 * `createGovernedApi`): every option and nested setting by name, so a misspelt one is refused
 * at construction with its path and the closest known name (docs/governed.md#options-are-checked).
 * Shapes only: functions, drivers, stores, loggers and entity documents are opaque here, and the
 * values keep the checks of the modules that own them (bodyLimit, rateLimit, auth keys, entity
 * documents, eventFeed caps, …), which name the same paths.
 */
import { z } from 'zod';

/** A function option (hooks, `ip`, `onError`, `resolveActor`, …): checked to be callable, nothing more. */
const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'must be a function.' });
/** An object the core only calls into (storage driver, store, metrics registry, logger): opaque. */
const opaque = (what: string) =>
  z.custom<object>((value) => (typeof value === 'object' && value !== null) || typeof value === 'function', { message: `must be ${what}.` });
const strings = z.array(z.string());
const tenantSwitch = z.union([z.boolean(), fn]);
const tenantDays = z.union([z.number(), fn]);

/** `auth`: verification settings, or a function from a request to an actor. */
const auth = z.union([
  fn,
  z.strictObject({
    secret: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
    publicKey: z.union([z.string(), z.looseObject({})]).optional(),
    jwksUrl: z.union([z.string(), z.instanceof(URL)]).optional(),
    issuer: z.union([z.string(), strings]).optional(),
    audience: z.union([z.string(), strings]).optional(),
    algorithms: strings.optional(),
    requireExpiry: z.boolean().optional(),
    clockTolerance: z.union([z.number(), z.string()]).optional(),
    resolveActor: fn.optional(),
  }),
]);

const rateLimit = z.union([
  z.literal(false),
  fn,
  z.strictObject({
    limit: z.number(),
    windowMs: z.number().optional(),
    algorithm: z.enum(['fixed-window', 'token-bucket']).optional(),
    store: opaque('a rate-limit store').optional(),
    key: fn.optional(),
  }),
]);

/** Options every resource of an API shares (the HTTP half). */
const httpShape = {
  auth,
  rateLimit: rateLimit.optional(),
  basePath: z.string().optional(),
  hooks: z.strictObject({ onRequest: fn.optional(), onResponse: fn.optional() }).optional(),
  bodyLimit: z.number().optional(),
  onError: fn.optional(),
  logger: opaque('a pino-style logger or a function').optional(),
  ip: fn.optional(),
  trustProxy: z.boolean().optional(),
};

/** Service settings an API may set for all resources. */
const sharedServiceShape = {
  redaction: z.strictObject({ hashSecret: z.string().optional() }).optional(),
  audit: z
    .strictObject({
      storeSnapshots: tenantSwitch.optional(),
      storeDiffValues: tenantSwitch.optional(),
      retentionDays: tenantDays.optional(),
      immutability: tenantSwitch.optional(),
    })
    .optional(),
  metrics: opaque('a metrics registry').optional(),
  idempotency: z.strictObject({ ttlMs: z.number().optional() }).optional(),
  onEvent: fn.optional(),
  purgeDeletedAfterDays: tenantDays.optional(),
  recordLimit: z.number().optional(),
};

/** Settings of one resource (besides the shared ones). */
const ownResourceShape = {
  entity: opaque('an entity document or defineEntity(...) result'),
  tier: z.enum(['tier-1', 'tier-2', 'tier-3']).optional(),
  rollback: z.boolean().optional(),
  plans: strings.optional(),
  resourceName: z.string().optional(),
  rules: z.strictObject({ validate: fn.optional(), afterCommit: fn.optional() }).optional(),
  deprecation: z.union([z.boolean(), z.strictObject({ sunset: z.union([z.date(), z.string()]).optional(), link: z.string().optional() })]).optional(),
};

const storage = opaque('a storage driver such as memoryStorage()');

/** `createGovernedResource` options. */
export const governedResourceOptionsSchema = z.strictObject({ ...httpShape, ...sharedServiceShape, ...ownResourceShape, storage });

/** One `{ entity, … }` entry of an API's `resources`: per-resource settings, no HTTP ones. */
const resourceEntry = z.strictObject({ ...sharedServiceShape, ...ownResourceShape });

/** True for a `{ entity, … }` wrapper (an entity document has `$schema` and no `entity`). */
export function isResourceEntry(value: unknown): value is { entity: unknown } {
  return typeof value === 'object' && value !== null && 'entity' in value && !('$schema' in value);
}

/**
 * An entry of `resources`: an entity document (checked later by the entity validator, which
 * names its own paths) or a `{ entity, … }` wrapper, told apart as the API tells them apart.
 */
const resourceOrDocument = z.union([
  z.custom<object>((value) => typeof value === 'object' && value !== null && !isResourceEntry(value), {
    message: 'must be an entity document or { entity, … }.',
  }),
  resourceEntry,
]);

/** `createGovernedApi` options. */
export const governedApiOptionsSchema = z.strictObject({
  ...httpShape,
  ...sharedServiceShape,
  storage,
  // A list, or an object whose keys are the path names (typed keys: docs/decisions/B02.md).
  resources: z
    .union([z.array(resourceOrDocument), z.record(z.string(), resourceOrDocument)])
    .refine((resources) => Object.keys(resources).length > 0, 'must list at least one entity.'),
  auditRoutes: z.boolean().optional(),
  eventRoutes: z.boolean().optional(),
  eventFeed: z.strictObject({ maxWaiters: z.number().optional(), maxWaitersPerActor: z.number().optional() }).optional(),
  // The verifiable log (docs/verifiable-history.md); the signer's shape is checked where it is used.
  log: z
    .strictObject({
      signer: z.custom<object>((value) => typeof value === 'object' && value !== null, 'must be a signer: await noteSigner(signerKey)'),
      origin: z.string().optional(),
      everyLeaves: z.number().optional(),
      everySeconds: z.number().optional(),
      sink: z.custom<(...args: unknown[]) => unknown>((value) => typeof value === 'function', 'must be a function').optional(),
    })
    .optional(),
});
