/**
 * The data-lifecycle policy of one governed resource, resolved from its options: retention days
 * and immutability per tenant (the `audit` options) and the soft-delete purge period.
 */
import { ConfigurationError } from '../../errors.ts';
import { MAX_LIFECYCLE_DAYS } from '../../limits.ts';
import type { GovernedServiceOptions, TenantDays, TenantSwitch } from '../service-types.ts';

/** Per-tenant answers of a resource's lifecycle options. */
export interface LifecyclePolicy {
  /** Days of history kept for the tenant; undefined: unlimited. */
  retentionDays(tenantId: string): number | undefined;
  /** Whether the tenant's history is immutable (no purge, no deletion). */
  immutable(tenantId: string): boolean;
  /** Days after a soft delete the record is purged; undefined: never. */
  purgeDeletedAfterDays(tenantId: string): number | undefined;
}

/**
 * A positive day count up to {@link MAX_LIFECYCLE_DAYS}, or undefined; anything else a function
 * returns is a configuration error (a longer period has no representable cut-off date).
 */
function checkedDays(path: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_LIFECYCLE_DAYS)
    throw new ConfigurationError(path, `must be a positive number of days up to ${MAX_LIFECYCLE_DAYS} (or undefined: unlimited), got ${String(value)}`);
  return value;
}

function days(path: string, option: TenantDays | undefined): (tenantId: string) => number | undefined {
  if (typeof option === 'function') return (tenantId) => checkedDays(path, option(tenantId));
  const value = checkedDays(path, option);
  return () => value;
}

function flag(option: TenantSwitch | undefined): (tenantId: string) => boolean {
  if (typeof option === 'function') return (tenantId) => option(tenantId) === true;
  return () => option === true;
}

/** Resolves the lifecycle options of a service; throws {@link ConfigurationError} on a bad constant. */
export function lifecyclePolicy(options: Pick<GovernedServiceOptions, 'audit' | 'purgeDeletedAfterDays'>): LifecyclePolicy {
  return {
    retentionDays: days('audit.retentionDays', options.audit?.retentionDays),
    immutable: flag(options.audit?.immutability),
    purgeDeletedAfterDays: days('purgeDeletedAfterDays', options.purgeDeletedAfterDays),
  };
}
