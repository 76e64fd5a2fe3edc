/**
 * `cellgate erase`: erases the personal data of one record (docs/erasure.md) in the storage of
 * DATABASE_URL (or `cellgate.config.ts`), as a tenant admin named on the command line. The entity
 * comes from `--entity` documents, the configuration's entities or the reference host's demo ones;
 * the record's workspace and cell are read from its audit history, so only the tenant and the id
 * are needed. Exit 0 erased, 1 not found or refused or a database failure, 2 bad arguments.
 */
import { defineEntity, entityReference, resourcePathName, type EntityDefinitionDocument } from '../../entity-document/index.ts';
import { CellgateError, ConfigurationError } from '../../errors.ts';
import type { GovernedContext } from '../../governed/types.ts';
import { UsageError, parseCommandArgs, runCommand } from '../args.ts';
import { entityDocumentsOrDemo, loadCommandConfig, storageUrl, type LoadedConfig } from '../config.ts';
import { missingDriver } from './storage-hints.ts';

const help = `Usage: cellgate erase --resource <name> --id <uuid> --tenant <id> --reason <text>
                     [--fields <a,b>] [--entity <file>]... [--actor <id>] [--database-url <url>]
                     [--config <file>] [--vacuum | --vacuum-full]

Erases the personal data of one record: its live state, every stored version state, its audit
diffs and snapshots and its outbox events (what the change feed and pending webhooks send) lose
the values; the history keeps its versions, paths, events and stored hashes. The record gets a
new version, with an entity.erased audit record and event (see docs/erasure.md).

Options:
  --resource <name>    the resource path name (customers) or resource type (crm.Customer@v1)
  --id <uuid>          the record id
  --tenant <id>        the tenant the record belongs to
  --reason <text>      why (stored in the erasure's audit record: put no personal data in it)
  --fields <a,b>       camelCase fields to erase (default: every sensitive, credential or
                       redact field of the entity)
  --entity <file>      an entity definition document (YAML or JSON); repeat for several
                       (default: the entities of the configuration file, else the reference
                       host's demo entities)
  --actor <id>         who erases, recorded in the audit record (default cellgate-cli)
  --database-url <u>   memory:, sqlite:<file>, postgres://… (default: the configuration's
                       storage, else env DATABASE_URL, else sqlite:./.cellgate/dev.db)
  --vacuum             afterwards, reclaim the space the old values took (PostgreSQL: VACUUM of
                       the touched tables; SQLite: VACUUM and a WAL checkpoint), so they stop
                       lingering in the database files (see docs/erasure.md)
  --vacuum-full        the same with PostgreSQL's VACUUM FULL: the tables are rewritten and
                       locked against reads and writes while they are
  --config <file>      configuration file (default: cellgate.config.ts, .mts, .js or .mjs in the
                       current directory, when there is one); flags override it
  -h, --help           show this help

Exit codes: 0 erased, 1 no such record, refused or a database failure, 2 bad arguments.`;

async function entities(files: string[], loaded: LoadedConfig | undefined): Promise<EntityDefinitionDocument[]> {
  return (await entityDocumentsOrDemo(files, loaded)).map(({ label, document }) => {
    try {
      return defineEntity(document as Parameters<typeof defineEntity>[0]) as EntityDefinitionDocument;
    } catch (error) {
      throw error instanceof ConfigurationError ? new UsageError(`${label}: ${error.message}`) : error;
    }
  });
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** Erases one record; prints what was erased and rewritten as one JSON line. */
export async function run(args: string[]): Promise<number> {
  return runCommand('erase', help, args, async () => {
    const { values } = parseCommandArgs(args, {
      resource: { type: 'string' },
      id: { type: 'string' },
      tenant: { type: 'string' },
      reason: { type: 'string' },
      fields: { type: 'string' },
      entity: { type: 'string', multiple: true },
      actor: { type: 'string' },
      'database-url': { type: 'string' },
      config: { type: 'string' },
      vacuum: { type: 'boolean' },
      'vacuum-full': { type: 'boolean' },
    });
    if (values.vacuum && values['vacuum-full']) throw new UsageError('give --vacuum or --vacuum-full, not both');
    const vacuum = values['vacuum-full'] ? ('full' as const) : values.vacuum ? ('plain' as const) : undefined;
    const loaded = await loadCommandConfig('erase', values.config);
    const [resource, id, tenantId, reason] = ['resource', 'id', 'tenant', 'reason'].map((name) => required(values, name)) as [string, string, string, string];
    const fields = values.fields
      ?.split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const entity = (await entities(values.entity ?? [], loaded)).find(
      (candidate) => resourcePathName(candidate.name) === resource || entityReference(candidate) === resource,
    );
    if (entity === undefined) throw new UsageError(`no entity named ${resource} (give its document with --entity)`);
    const adminRole = entity.permissions.admin[0];
    if (adminRole === undefined) throw new UsageError(`${resource} names no admin role: nobody may erase its records`);

    const url = storageUrl(values['database-url'], loaded);
    const hint = await missingDriver(url);
    if (hint) {
      console.error(`cellgate erase: ${hint}`);
      return 1;
    }
    const [{ createStorageFromUrl }, { createGovernedService }, { eraseRecord }] = await Promise.all([
      import('../../host/storage.ts'),
      import('../../governed/service.ts'),
      import('../../governed/service-erase.ts'),
    ]);
    try {
      const { storage } = await createStorageFromUrl(url);
      try {
        const service = createGovernedService({ entity, storage });
        await storage.migrate([service.model]);
        // The record's workspace and cell, from its newest audit record (ids only, no values).
        const [last] = (await storage.listAudit({ tenantId, resourceType: service.resourceType, resourceId: id.toLowerCase(), limit: 1 })).records;
        if (last === undefined) {
          console.error(`cellgate erase: no ${resource} record ${id} in tenant ${tenantId}`);
          return 1;
        }
        const context: GovernedContext = {
          actor: { id: values.actor ?? 'cellgate-cli', type: 'service', tenantId, roles: [adminRole], workspaces: {}, permissions: [] },
          scope: { ...(last.workspaceId === null ? {} : { workspaceId: last.workspaceId }), ...(last.cellId === null ? {} : { cellId: last.cellId }) },
          meta: { requestId: `cli-erase-${crypto.randomUUID()}` },
        };
        const result = await eraseRecord(service, context, id, {
          reason,
          ...(fields === undefined ? {} : { fields }),
          ...(vacuum === undefined ? {} : { vacuum }),
        });
        console.log(
          JSON.stringify({
            erased: result.fields,
            id: result.record.data.id,
            version: result.record.meta.version,
            auditId: result.auditId,
            rewritten: result.rewritten,
            vacuumed: result.vacuumed,
          }),
        );
        return 0;
      } finally {
        await storage.close();
      }
    } catch (error) {
      if (error instanceof UsageError) throw error;
      if (error instanceof CellgateError || error instanceof ConfigurationError) {
        console.error(`cellgate erase: ${error.message}`);
        return error instanceof ConfigurationError && error.path === 'DATABASE_URL' ? 2 : 1;
      }
      console.error(`cellgate erase: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  });
}
