/**
 * Governed resources, domain core: the service of one entity, access rules, audit, metrics and
 * idempotency helpers. The HTTP layer (`createGovernedResource`) builds on these.
 */
export { createGovernedService } from './service.ts';
export { eraseRecord, type Erasable, type EraseOptions, type ErasureResult } from './service-erase.ts';
export { erasedValue, ERASED_TEXT } from './erasure.ts';
export type * from './service-types.ts';
export type * from './types.ts';
export { accessLevel, authorize, checkPlan, type AccessLevel, type AccessPolicy, type Operation } from './access.ts';
export { createMetricsRegistry, defaultMetricsRegistry, governedMetrics, DEFAULT_LATENCY_BUCKETS } from './metrics.ts';
export type { Counter, Histogram, MetricsRegistry, GovernedLogEntry, GovernedLogger, GovernedMetrics } from './metrics.ts';
export { applyPatch, parsePatch, jsonEqual, type JsonPatchOperation } from './patch.ts';
export { diffStates, REDACTED, type RedactedOperation } from './audit/index.ts';
export { canonicalJson, requestHash } from './idempotency.ts';
export type { AccessPrincipal, ApiAccess } from './principal-access.ts';
export { HISTORY_LIMIT, MAX_CHANGE_SET_WRITES, RULE_TIMEOUT_MS } from '../limits.ts';
export {
  BusinessRuleError,
  rulesFor,
  type AfterCommitContext,
  type BusinessRules,
  type RuleContext,
  type RuleInput,
  type RuleOperation,
} from './rules/business-rules.ts';
export { BusinessRuleFailure } from './rules/validate.ts';
export type {
  ContextBound,
  Transaction,
  TransactionMethod,
  TransactionReader,
  TransactionReadService,
  TransactionService,
} from './change-set/transaction-types.ts';
