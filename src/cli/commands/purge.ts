/**
 * `cellgate purge`: applies retention and the soft-delete purge to the database of DATABASE_URL,
 * as the operator `cellgate-cli` (docs/lifecycle.md, docs/cli.md). The policy comes from the same
 * variables as the reference host's (or the flags that override them); the entities and storage
 * from the flags, else `cellgate.config.ts`, else the host's demo entities and `DATABASE_URL`.
 * Exit 0 done, 1 refused (immutable tenant) or a database or document failure, 2 bad arguments.
 */
import { ConfigurationError, CellgateError } from '../../errors.ts';
import { purgeHistoryAsOperator, type PurgeReport } from '../../governed/lifecycle/purge-history.ts';
import { createGovernedService } from '../../governed/service.ts';
import { MAX_LIFECYCLE_DAYS } from '../../limits.ts';
import { UsageError, numberFlag, parseCommandArgs, runCommand } from '../args.ts';
import { entityDocumentsOrDemo, loadCommandConfig, storageUrl } from '../config.ts';
import { missingDriver } from './storage-hints.ts';

const help = `Usage: cellgate purge [--tenant <id>] [--dry-run] [--entity <file>]... [--database-url <url>]
                     [--retention-days <n>] [--deleted-after-days <n>] [--immutable-tenant <id>]...
                     [--config <file>]

Applies the data-lifecycle policy (docs/lifecycle.md) in bounded batches:
  retention   removes audit records, version states and delivered outbox events older than the
              retention period (never the version a record still needs); one audit.purged record
              per batch says what went
  purge       removes soft-deleted records past their period, with their version states; an
              entity.purged audit record (no values) and event stay
A tenant whose history is immutable is never touched: named with --tenant it is refused (exit 1);
in a run over every tenant it is skipped and reported.

Options:
  --tenant <id>              only this tenant (default: every tenant with history)
  --dry-run                  count what the first batch of each kind would remove; change nothing
  --entity <file>            an entity document (YAML or JSON); repeat for several (default: the
                             entities of the configuration file, else the reference host's demo ones)
  --retention-days <n>       days of history kept, 0 to ${MAX_LIFECYCLE_DAYS} (env CELLGATE_AUDIT_RETENTION_DAYS;
                             default unlimited)
  --deleted-after-days <n>   purge records soft-deleted this long ago, 0 to ${MAX_LIFECYCLE_DAYS}
                             (env CELLGATE_PURGE_DELETED_AFTER_DAYS; default never)
  --immutable-tenant <id>    a tenant whose history is immutable; repeat
                             (env CELLGATE_AUDIT_IMMUTABLE_TENANTS, comma-separated; both count)
  --database-url <u>         sqlite:<file>, postgres://… (default: the configuration's storage,
                             else env DATABASE_URL, else sqlite:./.cellgate/dev.db)
  --config <file>            configuration file (default: cellgate.config.ts, .mts, .js or .mjs in
                             the current directory, when there is one); flags override it
  -h, --help                 show this help

Exit codes: 0 done (or nothing to do), 1 refused (immutable tenant) or a database or entity
document failure, 2 bad arguments or DATABASE_URL.`;

/**
 * A period in days (0: off) from its flag, else the variable the flag overrides, checked here so a
 * bad one is a usage error naming its source; handed on as that variable.
 */
function daysFlag(name: string, raw: string | undefined, variable: string): Record<string, string> {
  const source = raw === undefined ? variable : `--${name}`;
  const value = numberFlag(source, raw ?? (process.env[variable]?.trim() || undefined), { min: 0, max: MAX_LIFECYCLE_DAYS, unit: 'days; 0: off' });
  return value === undefined ? {} : { [variable]: String(value) };
}

/** One line per tenant: what went, or why nothing did. */
function printReport(report: PurgeReport, label: string): void {
  const verb = report.dryRun ? 'would remove' : 'removed';
  console.log(report.dryRun ? `dry run on ${label}: nothing was changed (counts are of the first batch of each kind)` : `purged ${label}`);
  if (report.tenants.length === 0) console.log('  no tenant has history');
  for (const tenant of report.tenants) {
    if (tenant.skipped === 'immutable') {
      console.log(`  tenant ${tenant.tenantId}: skipped, its history is immutable`);
      continue;
    }
    const retention =
      tenant.retention === null
        ? 'retention unlimited'
        : `${verb} before ${tenant.retention.before}: ${tenant.retention.auditRecords} audit records, ${tenant.retention.versionStates} version states, ${tenant.retention.events} events, ${tenant.retention.deliveries} deliveries`;
    console.log(
      `  tenant ${tenant.tenantId}: ${retention}; ${verb} ${tenant.purged.records} soft-deleted records (${tenant.purged.versionStates} version states)`,
    );
  }
}

/** Runs the purge; prints one line per tenant. */
export async function run(args: string[]): Promise<number> {
  return runCommand('purge', help, args, async () => {
    const { values } = parseCommandArgs(args, {
      tenant: { type: 'string' },
      'dry-run': { type: 'boolean' },
      entity: { type: 'string', multiple: true },
      'retention-days': { type: 'string' },
      'deleted-after-days': { type: 'string' },
      'immutable-tenant': { type: 'string', multiple: true },
      'database-url': { type: 'string' },
      database: { type: 'string' },
      config: { type: 'string' },
    });
    const flags = {
      ...daysFlag('retention-days', values['retention-days'], 'CELLGATE_AUDIT_RETENTION_DAYS'),
      ...daysFlag('deleted-after-days', values['deleted-after-days'], 'CELLGATE_PURGE_DELETED_AFTER_DAYS'),
    };
    const loaded = await loadCommandConfig('purge', values.config);
    const url = storageUrl(values['database-url'] ?? values.database, loaded);
    const hint = await missingDriver(url);
    if (hint) {
      console.error(`cellgate purge: ${hint}`);
      return 1;
    }
    const { lifecycleFromEnv } = await import('../../host/purge.ts');
    const env = {
      ...process.env,
      ...flags,
      CELLGATE_AUDIT_IMMUTABLE_TENANTS: [process.env.CELLGATE_AUDIT_IMMUTABLE_TENANTS ?? '', ...(values['immutable-tenant'] ?? [])].join(','),
    };
    let policy: ReturnType<typeof lifecycleFromEnv>;
    try {
      policy = lifecycleFromEnv(env);
    } catch (error) {
      if (error instanceof ConfigurationError) throw new UsageError(error.message);
      throw error;
    }
    try {
      const entities = (await entityDocumentsOrDemo(values.entity ?? [], loaded)).map(({ document }) => document);
      const { createStorageFromUrl } = await import('../../host/storage.ts');
      const { storage, label } = await createStorageFromUrl(url);
      try {
        const services = entities.map((entity) => createGovernedService({ entity: entity as never, storage, ...policy }));
        await storage.migrate(services.map((service) => service.model));
        const report = await purgeHistoryAsOperator({
          resources: services,
          operator: 'cellgate-cli',
          ...(values.tenant === undefined ? {} : { tenantId: values.tenant }),
          dryRun: values['dry-run'] === true,
        });
        printReport(report, label);
        return 0;
      } finally {
        await storage.close();
      }
    } catch (error) {
      if (error instanceof UsageError) throw error;
      if (error instanceof CellgateError && error.code === 'AUDIT_IMMUTABLE') {
        console.error(`cellgate purge: refused: ${error.message} (tenant ${values.tenant})`);
        return 1;
      }
      if (error instanceof ConfigurationError) {
        console.error(`cellgate purge: ${error.message}`);
        return error.path === 'DATABASE_URL' ? 2 : 1;
      }
      console.error(`cellgate purge: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  });
}
