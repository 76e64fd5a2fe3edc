/**
 * The running write of governed mutations: one storage transaction, the change set its writes
 * belong to, and what waits for its commit (docs/decisions/B27.md). Every mutation operation
 * (create, update, delete, rollback, restore) runs in one: its own, opened here for a write on its
 * own, or the one of an `api.transaction` it was handed, so several writes share one transaction.
 */
import { CellgateError } from '../../errors.ts';
import { MAX_CHANGE_SET_WRITES } from '../../limits.ts';
import type { StorageDriver, StorageSession } from '../../storage/types.ts';

/** The change set of a running write. */
export interface ChangeSet {
  /**
   * UUID carried by every audit record and event written in it (`api.transaction`, a cascade);
   * null for a write on its own, which is its own unit (docs/decisions/B27.md).
   */
  readonly id: string | null;
  /** Record writes made so far. */
  readonly writes: number;
}

/**
 * A running write: the open storage session every write and read inside goes through, its change
 * set, and the work deferred to its commit. Handed to `ServiceOperation.run`, to every write check
 * and to business rules (through their `tx`).
 */
export interface WriteScope {
  readonly session: StorageSession;
  readonly changeSet: ChangeSet;
  /**
   * Counts one more record write; past {@link MAX_CHANGE_SET_WRITES} throws 413
   * `PAYLOAD_TOO_LARGE`, which rolls the whole transaction back.
   */
  count(): void;
  /**
   * Queues `task` for after the commit (event publication, `afterCommit` hooks, metrics, logs), in
   * order. Dropped when the transaction rolls back; a task that throws does not stop the others.
   */
  afterCommit(task: () => void): void;
  /** Throws when the transaction has ended: a `tx` kept past its callback writes nothing. */
  assertOpen(): void;
}

class RunningWrite implements WriteScope, ChangeSet {
  writes = 0;
  open = true;
  readonly tasks: Array<() => void> = [];
  constructor(
    readonly session: StorageSession,
    readonly id: string | null,
  ) {}

  get changeSet(): ChangeSet {
    return this;
  }

  count(): void {
    this.assertOpen();
    if (this.writes >= MAX_CHANGE_SET_WRITES) {
      throw new CellgateError(
        'PAYLOAD_TOO_LARGE',
        `A transaction may write at most ${MAX_CHANGE_SET_WRITES} records; nothing was written. Split the work into several transactions.`,
        { details: { limit: MAX_CHANGE_SET_WRITES } },
      );
    }
    this.writes += 1;
  }

  afterCommit(task: () => void): void {
    this.tasks.push(task);
  }

  assertOpen(): void {
    if (!this.open) throw new TypeError('This transaction has ended: use its tx only inside the callback of api.transaction.');
  }

  /** Runs the deferred work of a committed transaction; each task guards its own failures, this guards the rest. */
  committed(): void {
    for (const task of this.tasks) {
      try {
        task();
      } catch (error) {
        console.error('cellgate: after-commit work failed', error instanceof Error ? error.message : String(error));
      }
    }
  }
}

/**
 * Runs `fn` in one storage transaction with a fresh change set (`id` null for a write on its own),
 * then, once committed, its deferred work. A throwing `fn` rolls everything back and runs nothing
 * deferred.
 */
export async function runChangeSet<T>(storage: StorageDriver, id: string | null, fn: (scope: WriteScope) => Promise<T>): Promise<T> {
  let running: RunningWrite | undefined;
  const result = await storage.transaction(async (session) => {
    // A driver may run `fn` again after a busy rollback: each attempt starts a clean change set.
    running = new RunningWrite(session, id);
    try {
      return await fn(running);
    } finally {
      running.open = false;
    }
  });
  running?.committed();
  return result;
}

/** Runs `fn` in the running write it was handed (inside `api.transaction`), or in one of its own. */
export function withinWrite<T>(storage: StorageDriver, running: WriteScope | undefined, fn: (scope: WriteScope) => Promise<T>): Promise<T> {
  return running === undefined ? runChangeSet(storage, null, fn) : fn(running);
}
