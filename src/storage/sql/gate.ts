/**
 * A counting gate in front of write transactions. A transaction stuck behind a row lock holds its
 * pooled connection for as long as it waits; without a gate, enough of them take every connection
 * and reads of unrelated records queue behind a lock they do not need. The gate lets at most
 * `slots` transactions hold connections at once (the rest of the pool stays free for reads) and
 * refuses a transaction that cannot get a slot within `waitMs` with 503 and `Retry-After`.
 */
import { CellgateError } from '../../errors.ts';

/** Runs `fn` once a slot is free. */
export type Gate = <T>(fn: () => Promise<T>) => Promise<T>;

/** A gate with `slots` places; waiting longer than `waitMs` for one throws 503 `SERVICE_UNAVAILABLE`. */
export function createGate(slots: number, waitMs: number): Gate {
  let busy = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy -= 1;
  };

  const acquire = (): Promise<void> => {
    if (busy < slots) {
      busy += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      // The slot passes straight from the releasing transaction to this one (busy stays the same).
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(grant), 1);
        reject(
          new CellgateError('SERVICE_UNAVAILABLE', 'The service is busy: too many changes are waiting for the database. Retry shortly.', {
            headers: { 'Retry-After': '1' },
          }),
        );
      }, waitMs);
      waiting.push(grant);
    });
  };

  return async (fn) => {
    await acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  };
}
