/**
 * `cellgate audit export`: a tenant's audit records in a time range, oldest first, as NDJSON on
 * stdout (one record per line, as `GET /v1/audit` exports them), read straight from the storage
 * named by `--database-url`, `cellgate.config.ts` or `DATABASE_URL` (an operator's tool: database
 * access is the permission). Memory stays constant whatever the range: records are written as
 * they are read, waiting whenever stdout is full. A progress line goes to stderr only when stderr
 * is a terminal. Exit 0 done, 1 a storage failure, 2 bad arguments or URL.
 */
import { once } from 'node:events';
import { ConfigurationError } from '../../errors.ts';
import { isUuid, normalizeDateTime } from '../../governed/codec.ts';
import { UsageError, parseCommandArgs, runCommand } from '../args.ts';
import { loadCommandConfig, storageUrl } from '../config.ts';
import { missingDriver } from './storage-hints.ts';

const help = `Usage: cellgate audit export --from <date-time> --to <date-time> [options] > audit.ndjson

Writes every audit record of a tenant with from <= occurredAt < to to stdout as NDJSON (one JSON
record per line, oldest first, redacted as stored), the same lines as GET /v1/audit with
Accept: application/x-ndjson. Reads in pages: memory stays constant whatever the range.

Options:
  --from <date-time>     first instant included (RFC 3339, e.g. 2026-01-01T00:00:00Z, or a date)
  --to <date-time>       first instant no longer included (not before --from)
  --tenant <uuid>        the tenant (default: the reference host's demo tenant)
  --resource-type <rt>   only this entity reference, e.g. crm.Invoice@v1
  --database-url <u>     memory:, sqlite:<file>, postgres://… (default: the configuration's
                         storage, else env DATABASE_URL, else sqlite:./.cellgate/dev.db);
                         run cellgate migrate first
  --config <file>        configuration file (default: cellgate.config.ts, .mts, .js or .mjs in
                         the current directory, when there is one); flags override it
  -h, --help             show this help

A progress line is shown on stderr when it is a terminal. Exit codes: 0 exported, 1 a storage
failure, 2 bad arguments or DATABASE_URL.`;

const RESOURCE_TYPE = /^[a-z][a-z0-9_]*\.[A-Z][A-Za-z0-9]*@v\d+$/;

/** An instant option, normalised to UTC; a bad one is a usage error. */
function instant(name: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`--${name} <date-time> is required (see --help)`);
  const normalized = normalizeDateTime(value);
  if (normalized === null) throw new UsageError(`--${name} must be an RFC 3339 date-time such as 2026-01-01T00:00:00Z, not "${value.slice(0, 64)}"`);
  return normalized;
}

/** stdout went away (`| head`): the export stops quietly. */
class OutputClosed extends Error {}

/** Writes `text` to stdout, waiting for it to drain when its buffer is full (constant memory). */
async function write(text: string): Promise<void> {
  if (process.stdout.destroyed) throw new OutputClosed();
  if (process.stdout.write(text)) return;
  // `once` rejects if stdout fails meanwhile (EPIPE), which stops the export too.
  await once(process.stdout, 'drain').catch(() => {
    throw new OutputClosed();
  });
}

/** The export itself: opens the storage, streams the records, reports progress on a terminal. */
async function exportAudit(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, {
    from: { type: 'string' },
    to: { type: 'string' },
    tenant: { type: 'string' },
    'resource-type': { type: 'string' },
    'database-url': { type: 'string' },
    config: { type: 'string' },
  });
  const from = instant('from', values.from);
  const to = instant('to', values.to);
  if (to < from) throw new UsageError('--to must not be before --from');
  const tenantId = (values.tenant ?? (await import('../../host/demo.ts')).DEMO_IDS.tenant).toLowerCase();
  if (!isUuid(tenantId)) throw new UsageError('--tenant must be a UUID');
  const resourceType = values['resource-type'];
  if (resourceType !== undefined && (resourceType.length > 200 || !RESOURCE_TYPE.test(resourceType))) {
    throw new UsageError('--resource-type must be an entity reference such as crm.Invoice@v1');
  }
  const url = storageUrl(values['database-url'], await loadCommandConfig('audit export', values.config));
  const hint = await missingDriver(url);
  if (hint) {
    console.error(`cellgate audit export: ${hint}`);
    return 1;
  }
  const progress = process.stderr.isTTY === true;
  try {
    const { createStorageFromUrl } = await import('../../host/storage.ts');
    const { storage } = await createStorageFromUrl(url);
    let count = 0;
    try {
      for await (const record of storage.exportAudit({ tenantId, from, to, ...(resourceType === undefined ? {} : { resourceType }) })) {
        await write(`${JSON.stringify(record)}\n`);
        count += 1;
        if (progress && count % 1000 === 0) process.stderr.write(`\rexported ${count} records (up to ${record.occurredAt})`);
      }
    } finally {
      await storage.close();
    }
    if (progress) process.stderr.write(`\rexported ${count} records${' '.repeat(40)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof OutputClosed) return 0;
    if (error instanceof ConfigurationError) {
      console.error(`cellgate audit export: ${error.message}`);
      return error.path === 'DATABASE_URL' ? 2 : 1;
    }
    console.error(`cellgate audit export: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** Runs `cellgate audit <subcommand>`; `export` is the only one. */
export async function run(args: string[]): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'export') return runCommand('audit export', help, rest, () => exportAudit(rest));
  return runCommand('audit', help, args, async () => {
    throw new UsageError(
      subcommand === undefined
        ? 'name a subcommand: cellgate audit export (see --help)'
        : `unknown subcommand "${subcommand.slice(0, 40)}"; use cellgate audit export`,
    );
  });
}
