/**
 * The in-process rate-limit store: counts in a Map, decided synchronously. The default store of a
 * limiter on storage no other process shares, and the SQL store's per-process fallback while
 * another process holds SQLite's write lock (src/storage/sql/rate-limit-store.ts).
 */
import type { RateLimitDecision, RateLimitPolicy, RateLimitStore } from '../types.ts';

interface Slot {
  /** Fixed window: requests counted; token bucket: tokens left. */
  value: number;
  /** Fixed window: window start; token bucket: time of the last refill. */
  at: number;
}

/** Entries kept before a sweep of idle keys, so memory stays bounded by active callers. */
const SWEEP_AT = 10_000;

/** The in-process store; it decides synchronously. */
export interface MemoryRateLimitStore extends RateLimitStore {
  consume(key: string, policy: RateLimitPolicy, now: number): RateLimitDecision;
}

/** An in-process {@link RateLimitStore} (one per process; not shared between processes). */
export function memoryRateLimitStore(): MemoryRateLimitStore {
  const slots = new Map<string, Slot>();
  const sweep = (now: number, windowMs: number) => {
    for (const [key, slot] of slots) if (now - slot.at >= windowMs) slots.delete(key);
  };
  return {
    consume(key, policy, now) {
      if (slots.size >= SWEEP_AT) sweep(now, policy.windowMs);
      const slot = slots.get(key);
      if (policy.algorithm === 'fixed-window') {
        if (!slot || now - slot.at >= policy.windowMs) {
          slots.set(key, { value: 1, at: now });
          return { allowed: true, retryAfterMs: 0 };
        }
        if (slot.value < policy.limit) {
          slot.value += 1;
          return { allowed: true, retryAfterMs: 0 };
        }
        return { allowed: false, retryAfterMs: slot.at + policy.windowMs - now };
      }
      const perMs = policy.limit / policy.windowMs;
      const current = slot ? Math.min(policy.limit, slot.value + (now - slot.at) * perMs) : policy.limit;
      if (current >= 1) {
        slots.set(key, { value: current - 1, at: now });
        return { allowed: true, retryAfterMs: 0 };
      }
      slots.set(key, { value: current, at: now });
      return { allowed: false, retryAfterMs: Math.ceil((1 - current) / perMs) };
    },
  };
}
