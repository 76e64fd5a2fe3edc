/**
 * Binds services to a running write: `api.transaction`'s `tx` and a business rule's reader are the
 * API's services with the transaction's context and storage session (docs/decisions/B27.md).
 */
import { CellgateError, validationError } from '../../errors.ts';
import type { StorageDriver } from '../../storage/types.ts';
import type { ServiceContext } from '../service-context.ts';
import type { GovernedService } from '../service-types.ts';
import type { GovernedContext } from '../types.ts';
import type { TransactionReader, TransactionService } from './transaction-types.ts';
import { runChangeSet, type WriteScope } from './write-scope.ts';

/**
 * One resource's service bound to a context and a running write. Each call is async and first
 * checks the transaction is open, so a refusal is always a rejected promise.
 */
function bindService(service: GovernedService, context: GovernedContext, running: WriteScope): TransactionService {
  const open = <T>(call: () => Promise<T>): Promise<T> => Promise.resolve().then(() => (running.assertOpen(), call()));
  return {
    create: (input, options) =>
      open(() => {
        // A key makes one request replayable; a replay of one create of a change set would leave the rest undone or done twice.
        if (options?.idempotencyKey !== undefined)
          throw validationError('An Idempotency-Key is not accepted inside a transaction', [
            { path: 'idempotencyKey', message: 'Leave it out: the transaction is the unit that commits or not' },
          ]);
        return service.create(context, input);
      }),
    get: (id, options) => open(() => service.get(context, id, options)),
    list: (params) => open(() => service.list(context, params)),
    update: (id, body, options) => open(() => service.update(context, id, body, options)),
    delete: (id, options) => open(() => service.delete(context, id, options)),
    rollback: (id, body, options) => open(() => service.rollback(context, id, body, options)),
    history: (params) => open(() => service.history(context, params)),
    versions: (id, params) => open(() => service.versions(context, id, params)),
    getAudit: (auditId) => open(() => service.getAudit(context, auditId)),
  };
}

/** Every resource of `ctx`'s API, bound to `running` and `context`, by path name. */
function boundPeers(ctx: ServiceContext, running: WriteScope, context: GovernedContext): Record<string, TransactionService> {
  const bound: Record<string, TransactionService> = {};
  for (const [name, peer] of ctx.peers) bound[name] = bindService(peer.over(running), context, running);
  return bound;
}

/**
 * The reads a business rule gets as `tx`: `get` and `list` of every resource of the API, in the
 * write's transaction. Each resource's service is bound on first use, so a rule that reads one
 * resource of a large API builds one.
 */
export function transactionReader(ctx: ServiceContext, running: WriteScope, context: GovernedContext): TransactionReader {
  const reader: Record<string, Pick<TransactionService, 'get' | 'list'>> = {};
  for (const [name, peer] of ctx.peers) {
    let bound: TransactionService | undefined;
    const service = () => (bound ??= bindService(peer.over(running), context, running));
    reader[name] = { get: (id, options) => service().get(id, options), list: (params) => service().list(params) };
  }
  return reader;
}

/**
 * `api.transaction(context, fn)`: runs `fn` with every resource bound to one storage transaction
 * and one change set (a fresh UUID). Commits when `fn` resolves, then publishes the events and
 * runs the `afterCommit` hooks of every write, in order; a throwing `fn` rolls everything back and
 * publishes nothing.
 */
export function runTransaction<T>(
  storage: StorageDriver,
  contexts: readonly ServiceContext[],
  context: GovernedContext,
  fn: (tx: Record<string, TransactionService>) => Promise<T>,
): Promise<T> {
  const first = contexts[0];
  if (first === undefined) throw new CellgateError('INTERNAL_ERROR', 'An API without resources has nothing to write');
  if (typeof fn !== 'function') throw new TypeError('api.transaction(context, fn): fn must be an async function of tx');
  return runChangeSet(storage, crypto.randomUUID(), (running) => fn(boundPeers(first, running, context)));
}
