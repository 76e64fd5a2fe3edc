/**
 * Runs an entity's `rules.validate` on a write (docs/decisions/B28.md): bounded in time, its
 * refusal turned into 422 `BUSINESS_RULE_VIOLATION`, anything else into an internal error.
 */
import { CellgateError, type FieldIssue } from '../../errors.ts';
import { MAX_RULE_ISSUES, RULE_TIMEOUT_MS } from '../../limits.ts';
import { transactionReader } from '../change-set/bind.ts';
import { BusinessRuleError, type RuleContext } from './business-rules.ts';
import type { WriteCheckInput } from './write-checks.ts';

/**
 * A rule that threw something other than {@link BusinessRuleError}, returned something other
 * than issues, or ran past `RULE_TIMEOUT_MS`: a bug of the rule, answered 500 `INTERNAL_ERROR`
 * (and logged by the HTTP layer); the original error is its `cause`.
 */
export class BusinessRuleFailure extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'BusinessRuleFailure';
  }
}

// Storage trouble met by a rule's reads keeps its own answer (503, 507), as it would outside a rule.
const PASSED_THROUGH = new Set(['BUSINESS_RULE_VIOLATION', 'SERVICE_UNAVAILABLE', 'INSUFFICIENT_STORAGE']);

/** Runs `rules.validate` of the written entity, if it has one; throws its refusal or failure. */
export async function validateRules(input: WriteCheckInput, requestInput: unknown): Promise<void> {
  const { ctx, before, after, operation, context, running } = input;
  const validate = ctx.rules?.validate;
  if (validate === undefined) return;
  const rule: RuleContext = {
    operation,
    current: before === null ? null : ctx.codec.data(before),
    next: operation === 'delete' ? null : ctx.codec.data(after),
    context,
    tx: transactionReader(ctx, running, context),
  };
  const what = `The business rule of ${ctx.resourceType} on ${operation}`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BusinessRuleFailure(`${what} took longer than ${RULE_TIMEOUT_MS} ms`)), RULE_TIMEOUT_MS);
  });
  let outcome: unknown;
  try {
    outcome = await Promise.race([Promise.resolve().then(() => validate.call(ctx.rules, requestInput as never, rule)), timeout]);
  } catch (error) {
    if (error instanceof BusinessRuleFailure || (error instanceof CellgateError && PASSED_THROUGH.has(error.code))) throw error;
    throw new BusinessRuleFailure(`${what} threw: ${error instanceof Error ? error.message : String(error)}`, error);
  } finally {
    clearTimeout(timer);
  }
  const issues = issuesOf(outcome, what);
  if (issues.length > 0) throw new BusinessRuleError(`The ${operation} breaks a business rule of ${ctx.resourceType}`, issues);
}

/** The issues a rule returned: nothing, or a list of `{ path, message }`; anything else is the rule's bug. */
function issuesOf(outcome: unknown, what: string): FieldIssue[] {
  if (outcome === undefined || outcome === null) return [];
  const valid =
    Array.isArray(outcome) &&
    outcome.every(
      (issue: unknown) =>
        typeof issue === 'object' && issue !== null && typeof (issue as FieldIssue).path === 'string' && typeof (issue as FieldIssue).message === 'string',
    );
  if (!valid) throw new BusinessRuleFailure(`${what} returned something other than a list of { path, message } issues`);
  return (outcome as FieldIssue[]).slice(0, MAX_RULE_ISSUES).map(({ path, message }) => ({ path, message }));
}
