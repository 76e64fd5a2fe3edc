/**
 * The checks every governed write runs inside its transaction, just before it stores anything
 * (docs/decisions/B28.md): first the built-in write checks of the entity (references, cascades:
 * pushed onto `ServiceContext.writeChecks` when the service is built), then the entity's business
 * rules. A check refuses by throwing; the whole transaction then rolls back.
 */
import type { AuditEventType, RecordScope, StorageSession, StoredRecord } from '../../storage/types.ts';
import type { ChangeSet, WriteScope } from '../change-set/write-scope.ts';
import type { ServiceContext } from '../service-context.ts';
import type { GovernedContext } from '../types.ts';
import type { RuleOperation } from './business-rules.ts';
import { validateRules } from './validate.ts';

/** What a write check is given: the write about to be stored and the transaction it runs in. */
export interface WriteCheckInput {
  /** The entity written. */
  readonly ctx: ServiceContext;
  /** The open storage session: read (and, for a cascade, write) through it. */
  readonly session: StorageSession;
  /** The record's scope (tenant, workspace, cell). */
  readonly scope: RecordScope;
  /** The stored record before the write; null on create. */
  readonly before: StoredRecord | null;
  /** The record the write will store. */
  readonly after: StoredRecord;
  /** The caller's context. */
  readonly context: GovernedContext;
  /** The change set of the transaction: its id goes on every audit record and event a cascade writes. */
  readonly changeSet: ChangeSet;
  /** The running write: pass it to `write()` to store more records in the same transaction and change set. */
  readonly running: WriteScope;
  /** The audit event the write will record. */
  readonly eventType: AuditEventType;
  /** The operation, as business rules name it. */
  readonly operation: RuleOperation;
}

/**
 * A built-in check of one entity's writes, run inside the transaction before the write and before
 * the business rules. Throw a `CellgateError` to refuse (its code and status reach the caller).
 */
export type WriteCheck = (input: WriteCheckInput) => void | Promise<void>;

const OPERATIONS: Partial<Record<AuditEventType, RuleOperation>> = {
  'entity.created': 'create',
  'entity.updated': 'update',
  'entity.deleted': 'delete',
  'entity.rollback': 'rollback',
  'entity.restored': 'restore',
};

/** The rule operation of an audit event type, or undefined for one no rule is asked about (erasure, purge). */
export const ruleOperationOf = (eventType: AuditEventType): RuleOperation | undefined => OPERATIONS[eventType];

/** Runs the entity's write checks, then its business rules, on a write about to be stored. */
export async function checkWrite(input: WriteCheckInput, requestInput: unknown): Promise<void> {
  for (const check of input.ctx.writeChecks) await check(input);
  await validateRules(input, requestInput);
}
