/**
 * Retention and purge settings of the reference host, read from the environment, and the
 * optional schedule that runs `purgeHistoryAsOperator` in the host (docs/reference-host.md). `cellgate purge`
 * reads the same variables, so the command line and the host apply one policy.
 *
 * - `CELLGATE_AUDIT_RETENTION_DAYS`: days of history kept (unset: unlimited).
 * - `CELLGATE_AUDIT_IMMUTABLE_TENANTS`: comma-separated tenant ids whose history is immutable.
 * - `CELLGATE_PURGE_DELETED_AFTER_DAYS`: days after a soft delete a record is purged (unset: never).
 * - `CELLGATE_PURGE_INTERVAL_MS`: run the purge every so many milliseconds (unset or 0: off).
 */
import { ConfigurationError, purgeHistoryAsOperator, type AuditOptions, type GovernedApi, type PurgeReport } from 'cellgate';

type Env = Readonly<Record<string, string | undefined>>;

/** The lifecycle options of the host's governed API. */
export interface LifecycleSettings {
  audit: Pick<AuditOptions, 'retentionDays' | 'immutability'>;
  purgeDeletedAfterDays?: number;
}

function positive(env: Env, name: string, integer = false): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new ConfigurationError(
      name,
      `must be a ${integer ? 'whole ' : ''}number of ${name.endsWith('_MS') ? 'milliseconds' : 'days'} (0 or unset: off), got "${raw}"`,
    );
  }
  return value === 0 ? undefined : value;
}

/**
 * Reads the retention, immutability and soft-delete purge settings.
 *
 * @example
 * lifecycleFromEnv({ CELLGATE_AUDIT_RETENTION_DAYS: '365' }); // { audit: { retentionDays: 365 } }
 */
export function lifecycleFromEnv(env: Env): LifecycleSettings {
  const retentionDays = positive(env, 'CELLGATE_AUDIT_RETENTION_DAYS');
  const immutable = new Set(
    (env.CELLGATE_AUDIT_IMMUTABLE_TENANTS ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  );
  const purgeDeletedAfterDays = positive(env, 'CELLGATE_PURGE_DELETED_AFTER_DAYS');
  return {
    audit: {
      ...(retentionDays === undefined ? {} : { retentionDays }),
      ...(immutable.size === 0 ? {} : { immutability: (tenantId: string) => immutable.has(tenantId) }),
    },
    ...(purgeDeletedAfterDays === undefined ? {} : { purgeDeletedAfterDays }),
  };
}

/** One line per run that removed something, or failed. @default JSON lines on stdout / stderr */
export type PurgeLog = (entry: { report?: PurgeReport; error?: string }) => void;

const defaultLog: PurgeLog = (entry) => {
  if (entry.error !== undefined) console.error(JSON.stringify({ level: 'error', event: 'purge.failed', error: entry.error }));
  else console.log(JSON.stringify({ level: 'info', event: 'purge.completed', tenants: entry.report!.tenants }));
};

/**
 * Starts the purge schedule when `CELLGATE_PURGE_INTERVAL_MS` is set: one run at a time, every
 * interval, over every tenant with history, as the operator `reference-host`. Resolves a stop
 * function that waits for a run in progress. Off (a no-op stop) when the variable is unset or 0.
 */
export function schedulePurge(api: GovernedApi, env: Env, log: PurgeLog = defaultLog): () => Promise<void> {
  const interval = positive(env, 'CELLGATE_PURGE_INTERVAL_MS', true);
  if (interval === undefined) return async () => undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running !== undefined) return;
    running = purgeHistoryAsOperator({ api, operator: 'reference-host' })
      .then((report) => {
        if (
          report.tenants.some(
            (tenant) =>
              tenant.purged.records > 0 ||
              (tenant.retention !== null && Object.values(tenant.retention).some((count) => typeof count === 'number' && count > 0)),
          )
        )
          log({ report });
      })
      .catch((error: unknown) => log({ error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, interval);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
