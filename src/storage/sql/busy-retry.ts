/**
 * Waiting for a lock held by another process without blocking the event loop: a drivers' lock
 * wait that would block (better-sqlite3 waits synchronously) is kept to a few milliseconds per
 * try, and the tries are spaced by timers, so everything else in the process goes on meanwhile.
 */

/** Longest pause between two tries. */
const MAX_RETRY_PAUSE_MS = 50;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it does not fail with an error `isLockBusy` accepts, pausing on timers
 * (1 ms doubling up to 50 ms, with jitter) between tries; past `waitMs` the last error is thrown.
 */
export async function retryWhileBusy<T>(attempt: () => Promise<T>, isLockBusy: (error: unknown) => boolean, waitMs: number): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, MAX_RETRY_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (error) {
      const wait = pauseMs * (0.5 + Math.random() / 2);
      if (!isLockBusy(error) || Date.now() + wait >= deadline) throw error;
      await pause(wait);
    }
  }
}
