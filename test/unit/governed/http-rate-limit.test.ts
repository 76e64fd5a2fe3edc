/** Rate limiting (docs/decisions/B15.md): fixed window and token bucket counted by the in-memory store, 429 with Retry-After. */
import { describe, expect, it } from 'vitest';
import { CellgateError, ConfigurationError, type RateLimitPolicy, type Actor } from 'cellgate';
import { createRateLimiter, memoryRateLimitStore } from '../../../src/governed/rate-limit.ts';

const actor = (id: string, tenantId = 't1'): Actor => ({ id, type: 'user', tenantId, roles: [], workspaces: {}, permissions: [] });
const request = new Request('http://x/');

describe('memoryRateLimitStore', () => {
  it('fixed window: allows `limit` per window, tells when the window ends, then resets', () => {
    const store = memoryRateLimitStore();
    const policy: RateLimitPolicy = { algorithm: 'fixed-window', limit: 2, windowMs: 1000 };
    expect(store.consume('k', policy, 0)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(store.consume('k', policy, 100).allowed).toBe(true);
    expect(store.consume('k', policy, 400)).toEqual({ allowed: false, retryAfterMs: 600 });
    expect(store.consume('other', policy, 400).allowed).toBe(true);
    expect(store.consume('k', policy, 1000).allowed).toBe(true);
  });

  it('token bucket: a burst of `limit`, then one token per windowMs/limit', () => {
    const store = memoryRateLimitStore();
    const policy: RateLimitPolicy = { algorithm: 'token-bucket', limit: 4, windowMs: 4000 };
    for (let i = 0; i < 4; i++) expect(store.consume('k', policy, 0).allowed).toBe(true);
    const refused = store.consume('k', policy, 0);
    expect(refused).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(store.consume('k', policy, 500).allowed).toBe(false);
    expect(store.consume('k', policy, 1000).allowed).toBe(true);
    expect(store.consume('k', policy, 1000).allowed).toBe(false);
  });
});

describe('createRateLimiter', () => {
  it('throws 429 RATE_LIMITED with Retry-After per tenant + actor', async () => {
    const limit = createRateLimiter({ limit: 1, windowMs: 30_000 });
    await limit(actor('a'), request);
    const error = await limit(actor('a'), request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CellgateError);
    expect((error as CellgateError).code).toBe('RATE_LIMITED');
    expect(Number((error as CellgateError).headers?.['retry-after'])).toBeGreaterThanOrEqual(29);
    await expect(limit(actor('a', 't2'), request)).resolves.toBeUndefined();
    await expect(limit(actor('b'), request)).resolves.toBeUndefined();
  });

  it('uses a custom store and key', async () => {
    const seen: string[] = [];
    const limit = createRateLimiter({
      limit: 5,
      key: (a) => `tenant:${a.tenantId}`,
      store: { consume: (key) => (seen.push(key), { allowed: true, retryAfterMs: 0 }) },
    });
    await limit(actor('a'), request);
    expect(seen).toEqual(['tenant:t1']);
  });

  it('refuses bad options at construction', () => {
    expect(() => createRateLimiter({ limit: 0 })).toThrow(ConfigurationError);
    expect(() => createRateLimiter({ limit: 1.5 })).toThrow(/rateLimit.limit/);
    expect(() => createRateLimiter({ limit: 1, windowMs: -1 })).toThrow(/rateLimit.windowMs/);
  });
});
