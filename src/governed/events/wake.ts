/**
 * Wakes feed readers waiting on a storage when this process commits an event to it, so a
 * long-poll answers at once for local writes; writes of other processes are found by the
 * readers' periodic look (`EVENT_FEED_POLL_MS`).
 */
import type { StorageDriver } from '../../storage/types.ts';

const waiters = new WeakMap<StorageDriver, Set<() => void>>();

/** Called after a commit that appended events to `storage`. */
export function wakeReaders(storage: StorageDriver): void {
  const set = waiters.get(storage);
  if (set === undefined) return;
  waiters.delete(storage);
  for (const wake of set) wake();
}

/** Resolves after `ms`, on the next local commit to `storage`, or when `signal` aborts, whichever is first. */
export function nextCommitOr(storage: StorageDriver, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let set = waiters.get(storage);
    if (set === undefined) {
      set = new Set();
      waiters.set(storage, set);
    }
    const timer = setTimeout(done, ms);
    set.add(done);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      waiters.get(storage)?.delete(done);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
