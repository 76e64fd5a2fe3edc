/**
 * Business rules of one entity (docs/entities.md#business-rules, docs/decisions/B28.md):
 * `validate` runs inside the write's transaction for every create, update (merge and JSON Patch),
 * delete, rollback and restore, from HTTP and code alike, after the built-in write checks; it
 * refuses with {@link BusinessRuleError} (or by returning issues) → 422 `BUSINESS_RULE_VIOLATION`,
 * nothing written. `afterCommit` runs after the commit, never inside the transaction.
 */
import type { EntityDefinition, EntityTypes, GeneralEntityTypes } from '../../entity-document/index.ts';
import { CellgateError, type FieldIssue } from '../../errors.ts';
import type { DomainEvent } from '../../storage/types.ts';
import type { TransactionReader } from '../change-set/transaction-types.ts';
import type { RollbackInput, UpdateBody } from '../service-types.ts';
import type { EntityData, GovernedContext } from '../types.ts';

/** The mutation a rule is asked about; `restore` is a rollback of a soft-deleted record. */
export type RuleOperation = 'create' | 'update' | 'delete' | 'rollback' | 'restore';

/**
 * What the write was asked, as the caller sent it: the create body, the update body (merge fields
 * or `{ patch }`), the rollback body, or null for a delete.
 */
export type RuleInput<T extends EntityTypes = GeneralEntityTypes> = T['input'] | UpdateBody<T> | RollbackInput | null;

/** The second argument of `validate`: the states around the write, its caller and a reader of the transaction. */
export interface RuleContext<T extends EntityTypes = GeneralEntityTypes> {
  operation: RuleOperation;
  /** The record before the write (null on create), as the API answers it. */
  current: EntityData<T['record']> | null;
  /** The record the write would store (the merged or patched state on update; null on delete). */
  next: EntityData<T['record']> | null;
  /** The caller's context: its actor and scope. */
  context: GovernedContext;
  /**
   * Reads of the API's other resources (`tx.projects.get(id)`, `tx.tasks.list(…)`) in the same
   * transaction, with the caller's access: they see what the transaction wrote so far.
   */
  tx: TransactionReader;
}

/** The third argument of `afterCommit`. */
export interface AfterCommitContext {
  /** The context of the write that committed. */
  context: GovernedContext;
}

/**
 * Business rules of one entity: the `rules` option of `createGovernedResource`, of a
 * `createGovernedApi` resource and of `createTestApi`.
 *
 * @example
 * rules: {
 *   async validate(_input, { next, tx }) {
 *     if (next === null) return;
 *     const project = await tx.projects?.get(next.projectId);
 *     if (project?.data.status !== 'ACTIVE') return [{ path: 'projectId', message: 'The project is not active' }];
 *   },
 *   afterCommit(event) { queue.push(event.resourceId); },
 * }
 */
export interface BusinessRules<T extends EntityTypes = GeneralEntityTypes> {
  /**
   * Runs in the write's transaction before anything is stored. Throw {@link BusinessRuleError} or
   * return issues to refuse (422 `BUSINESS_RULE_VIOLATION`, nothing written); return nothing (or
   * an empty list) to accept. Anything else thrown, or taking longer than `RULE_TIMEOUT_MS`
   * (2,000 ms), is an internal error: 500, logged, nothing written.
   */
  validate?(input: RuleInput<T>, rule: RuleContext<T>): void | readonly FieldIssue[] | Promise<void | readonly FieldIssue[]>;
  /**
   * Called once per committed write of this entity with its domain event (tier-3 entities too),
   * after the commit and after `onEvent`; never for a write that rolled back. What it throws or
   * rejects is logged and never changes the answer.
   */
  afterCommit?(event: DomainEvent, after: AfterCommitContext): void | Promise<void>;
}

/**
 * The refusal of a business rule: 422 `BUSINESS_RULE_VIOLATION` with `details.fields`, and the
 * whole write (the whole transaction, inside `api.transaction`) rolls back.
 *
 * @example
 * throw new BusinessRuleError('A task of a closed project cannot be reopened', [{ path: 'status', message: 'The project is closed' }]);
 */
export class BusinessRuleError extends CellgateError {
  constructor(message: string, fields: readonly FieldIssue[] = []) {
    super('BUSINESS_RULE_VIOLATION', message, { details: { fields: fields.map(({ path, message }) => ({ path, message })) } });
    this.name = 'BusinessRuleError';
  }
}

/**
 * Types the rules of an entity from its `defineEntity` result, for places where the option itself
 * is general (a `createGovernedApi` resource): `next`, `current` and `input` get the record types.
 * Returns `rules` as given.
 *
 * @example
 * resources: { tasks: { entity: Task, rules: rulesFor(Task, { validate: (_input, { next }) => checkTask(next) }) } }
 */
export function rulesFor<T extends EntityTypes>(_entity: EntityDefinition<T>, rules: BusinessRules<T>): BusinessRules<T> {
  return rules;
}
