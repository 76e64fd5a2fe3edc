/**
 * Rate limiting of governed routes: a fixed window or a token bucket per tenant + actor, counted
 * by a {@link RateLimitStore}. On storage several processes share (PostgreSQL, a SQLite file) the
 * default store is the storage's own table, so every process counts together; otherwise (memory)
 * it is in-process. Another shared store (Redis, …) implements the same one method.
 */
import { CellgateError, ConfigurationError } from '../errors.ts';
import { memoryRateLimitStore } from '../storage/memory/rate-limit.ts';
import type { RateLimitPolicy, RateLimitStore } from '../storage/types.ts';
import type { Actor } from './types.ts';

export { type MemoryRateLimitStore, memoryRateLimitStore } from '../storage/memory/rate-limit.ts';
export type { RateLimitDecision, RateLimitPolicy, RateLimitStore } from '../storage/types.ts';

/** Options of `rateLimit` on a governed resource. */
export interface RateLimitOptions {
  /** Requests allowed per window (fixed window) or bucket size (token bucket). */
  limit: number;
  /** Window length in milliseconds. @default 60000 */
  windowMs?: number;
  /** @default "fixed-window" */
  algorithm?: RateLimitPolicy['algorithm'];
  /**
   * Where counts are kept.
   * @default the storage's shared store (`storage.rateLimitStore`) when the storage has one, else an in-memory store private to this limiter
   */
  store?: RateLimitStore;
  /** The counting key. @default `${actor.tenantId}:${actor.id}` */
  key?: (actor: Actor, request: Request) => string;
}

/** Checks one request; throws 429 `RATE_LIMITED` with `Retry-After` when over the limit. */
export type RateLimiter = (actor: Actor, request: Request) => Promise<void>;

/**
 * Builds a limiter from options, validating them. `sharedStore` (the storage's
 * `rateLimitStore`) is used when the options name no store.
 *
 * @example
 * const limit = createRateLimiter({ limit: 120 }); // 120 requests per minute per tenant + actor
 */
export function createRateLimiter(options: RateLimitOptions, path = 'rateLimit', sharedStore?: RateLimitStore): RateLimiter {
  if (!Number.isInteger(options.limit) || options.limit < 1) {
    throw new ConfigurationError(`${path}.limit`, 'must be a positive integer.');
  }
  const windowMs = options.windowMs ?? 60_000;
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new ConfigurationError(`${path}.windowMs`, 'must be a positive number.');
  const policy: RateLimitPolicy = { algorithm: options.algorithm ?? 'fixed-window', limit: options.limit, windowMs };
  const store = options.store ?? sharedStore ?? memoryRateLimitStore();
  const keyOf = options.key ?? ((actor: Actor) => `${actor.tenantId}:${actor.id}`);
  return async (actor, request) => {
    const decision = await store.consume(keyOf(actor, request), policy, Date.now());
    if (decision.allowed) return;
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new CellgateError('RATE_LIMITED', `Too many requests; retry in ${seconds} s.`, {
      details: { retryAfterSeconds: seconds },
      headers: { 'retry-after': String(seconds) },
    });
  };
}
