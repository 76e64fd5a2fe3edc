/**
 * The types of `api.transaction`'s `tx`: each resource's service with the context bound (the
 * transaction's), so `tx.tasks.create(input)` has the input and record types of
 * `api.resources.tasks.service.create(context, input)`.
 */
import type { GovernedContext } from '../types.ts';
import type { GovernedService } from '../service-types.ts';

/** The service methods a transaction offers, each without its first (context) parameter. */
export type TransactionMethod = 'create' | 'get' | 'list' | 'update' | 'delete' | 'rollback' | 'history' | 'versions' | 'getAudit';

/** A method with its context parameter bound. */
export type ContextBound<F> = F extends (context: GovernedContext, ...rest: infer A) => infer R ? (...rest: A) => R : never;

/**
 * One resource inside a transaction: its service's methods, bound to the transaction's context,
 * writing in the transaction's storage transaction and change set.
 */
export type TransactionService<S = GovernedService> = { readonly [M in TransactionMethod]: M extends keyof S ? ContextBound<S[M]> : never };

/**
 * The `tx` of `api.transaction`: one {@link TransactionService} per resource, by path name (typed
 * members when `api.resources` is typed: `tx.nope` does not compile).
 */
export type Transaction<Resources> = { readonly [K in keyof Resources]: Resources[K] extends { readonly service: infer S } ? TransactionService<S> : never };

/** A resource as a business rule reads it: `get` and `list` in the write's transaction. */
export type TransactionReadService = Pick<TransactionService, 'get' | 'list'>;

/**
 * The `tx` of a business rule: the reads of every resource of the API (of the one resource, for
 * `createGovernedResource`), by path name, in the write's transaction with the caller's access.
 */
export type TransactionReader = { readonly [resourceName: string]: TransactionReadService | undefined };
