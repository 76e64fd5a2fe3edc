/**
 * `cellgate migrate`: creates (idempotently) the tables for `DATABASE_URL`: cellgate's shared
 * tables (audit log, version state, idempotency keys) and one table per entity document, either
 * the reference host's demo entities or the documents given with `--entity`. Safe to run from
 * several processes at once. Exit 0 done, 1 database or document failure, 2 bad arguments or URL.
 */
import { defineEntity, toStorageModel, type EntityDefinitionDocument } from '../../entity-document/index.ts';
import { ConfigurationError } from '../../errors.ts';
import { MigrationRefusedError } from '../../storage/drift.ts';
import { readMigrationFiles, withMigrationFiles, writeNextMigrationFile } from '../../node/migration-files.ts';
import { renderMigrationFile } from '../../storage/sql/migration-files.ts';
import { observeMigration, type MigrationAction, type MigrationRun } from '../../storage/sql/migrate.ts';
import type { EntityStorageModel } from '../../storage/types.ts';
import { UsageError, parseCommandArgs, runCommand } from '../args.ts';
import { entityDocumentsOrDemo, loadCommandConfig, storageUrl, type LoadedConfig } from '../config.ts';
import { missingDriver } from './storage-hints.ts';

const help = `Usage: cellgate migrate [--entity <file>]... [--database-url <url>] [--config <file>] [--dry-run] [--generate] [--dir <folder>]
       cellgate migrate --upgrade <entity key> [--batch-size <n>] [--dry-run] [--config <file>]

Creates the storage tables for DATABASE_URL (idempotent; safe from several processes at once):
the audit log, version state and idempotency tables, and one table per entity major.
Without --entity, migrates the entities of the configuration file, or without one the reference
host's demo entities (customers, invoices, activity events).

Each existing entity table is compared with its entity: missing columns and indexes are added
(an optional field, a widened enum, a new sorted or filtered field). Refused, with nothing changed:
a column whose type or nullability changed (printed with the statement that would change it), a
required field added over existing rows, rows without a value in a required field, stored values
outside a narrowed enum. A column no longer in the entity is kept. The app's own migrate() judges
the same way and throws MigrationRefusedError. Prints every action, or "up to date".
A required field with a default is added and the stored rows are backfilled in batches.

Migration files: a column type change and a rename (a field's renamed_from) are never made by
themselves. --generate writes them to the next numbered file of the migrations folder,
<NNNN>_<table>.<driver>.sql, for you to review (map the stored values) and commit; a plain
cellgate migrate then applies the files of the folder not applied yet, each in one transaction,
recorded in cellgate_migrations (re-running is a no-op), before it compares the tables.

Majors (docs/evolving-entities.md#majors-and-upgrades): --upgrade <entity key> then copies every
record of the older major to the newer one through the up function of the configuration file's
defineEntity(v2, { from: v1, up }), online, in batches (one transaction each, progress stored: a
killed run resumes), with a progress line, until the newer major is in step. With --dry-run it
lists the records up or the newer schema refuses and writes nothing. Exit 1 when a record is refused.

Options:
  --upgrade <key>      upgrade the entity's older major to its newer one (both in the configuration)
  --batch-size <n>     records per upgrade batch, 1 to 500 (default 200)
  --entity <file>      an entity definition document (YAML or JSON); repeat for several
  --dry-run            print what would be done, with the SQL, and change nothing
  --generate           write the migration files of the changes refused above, change nothing
  --dir <folder>       the migration files folder (default: migrations)
  --database-url <u>   memory:, sqlite:<file>, sqlite::memory:, pglite:<folder>, postgres://…
                       (env DATABASE_URL, default sqlite:./.cellgate/dev.db)
  --config <file>      configuration file (default: cellgate.config.ts, .mts, .js or .mjs in the
                       current directory, when there is one); flags override it
  -h, --help           show this help

Exit codes: 0 migrated (or nothing to do), 1 a change refused, a database or entity document
failure, 2 bad arguments or DATABASE_URL.`;

async function models(files: string[], loaded: LoadedConfig | undefined): Promise<EntityStorageModel[]> {
  return (await entityDocumentsOrDemo(files, loaded)).map(({ label, document }) => {
    try {
      return toStorageModel(defineEntity(document as Parameters<typeof defineEntity>[0]));
    } catch (error) {
      if (error instanceof ConfigurationError) throw new ConfigurationError(label, error.message);
      throw error;
    }
  });
}

/** Prints what was done (or would be), what was refused and why. */
function printActions(run: MigrationRun, refused: MigrationRefusedError | undefined): void {
  if (run.actions.length === 0) {
    console.log('up to date: every table matches its entity');
    return;
  }
  // A refusal rolls the whole run back: what would have been applied was not.
  const verb = { applied: run.dryRun || refused ? 'would apply' : 'applied', refused: 'refused', kept: 'kept' } as const;
  for (const action of run.actions) {
    console.log(`  ${verb[action.outcome]}: ${action.table}: ${action.summary}`);
    if (action.sql && (run.dryRun || action.outcome === 'refused')) console.log(`    ${action.sql};`);
  }
  if (refused) {
    console.log("Nothing was changed: a refused change stops the whole migration, here and in the app's migrate().");
    for (const refusal of refused.refusals) console.log(`  ${refusal.table}.${refusal.column}: ${refusal.way}`);
  }
}

// The refusals a migration file resolves end their summary so (storage/sql/migrate.ts).
const GENERATABLE = /generate (a|the) migration$/;

/** `--generate`: one file per table whose refusals a migration resolves; the others are printed as they are. */
async function generateFiles(run: MigrationRun, driverName: string, dir: string, label: string): Promise<number> {
  const driver = driverName === 'sqlite' ? 'sqlite' : driverName === 'postgres' || driverName === 'pglite' ? 'postgres' : undefined;
  if (driver === undefined) {
    console.log(`nothing to generate on ${label}: the ${driverName} driver has no schema (migration files are SQL)`);
    return 0;
  }
  const byTable = new Map<string, MigrationAction[]>();
  for (const action of run.actions) {
    if (action.outcome !== 'refused' || !GENERATABLE.test(action.summary) || action.sql === '') continue;
    byTable.set(action.table, [...(byTable.get(action.table) ?? []), action]);
  }
  if (byTable.size === 0) console.log(`nothing to generate on ${label}: no type change or rename is waiting`);
  for (const [table, actions] of byTable) {
    const path = await writeNextMigrationFile(dir, table, driver, renderMigrationFile(driver, table, actions));
    console.log(`wrote ${path}: ${actions.map((action) => action.summary).join('; ')}`);
  }
  const others = run.actions.filter((action) => action.outcome === 'refused' && !byTable.get(action.table)?.includes(action));
  for (const action of others) console.log(`  still refused (no migration file can do it): ${action.table}: ${action.summary}`);
  if (byTable.size > 0) console.log('Review each file, commit it, and run `cellgate migrate` to apply it.');
  return 0;
}

/** `--upgrade`: a storage of its own (the migration's is closed), the configuration's entity objects (they carry `up`). */
async function upgradeAfterMigration(
  url: string | undefined,
  key: string,
  batchSize: string | undefined,
  dryRun: boolean,
  loaded: LoadedConfig | undefined,
  files: string[],
): Promise<number> {
  const size = batchSize === undefined ? undefined : Number(batchSize);
  if (size !== undefined && !(Number.isSafeInteger(size) && size >= 1 && size <= 500)) throw new UsageError('--batch-size must be an integer from 1 to 500');
  const { createStorageFromUrl } = await import('../../host/storage.ts');
  const { storage } = await createStorageFromUrl(url);
  try {
    const documents = (await entityDocumentsOrDemo(files, loaded)).map(({ document }) => document as EntityDefinitionDocument);
    const { runUpgradeCommand } = await import('./migrate-upgrade.ts');
    return await runUpgradeCommand(storage, documents, key, { ...(size === undefined ? {} : { batchSize: size }), dryRun });
  } finally {
    await storage.close();
  }
}

/** Runs the migrations; prints one line per migrated entity table and every action. */
export async function run(args: string[]): Promise<number> {
  return runCommand('migrate', help, args, async () => {
    const { values } = parseCommandArgs(args, {
      entity: { type: 'string', multiple: true },
      'database-url': { type: 'string' },
      'dry-run': { type: 'boolean' },
      generate: { type: 'boolean' },
      dir: { type: 'string' },
      config: { type: 'string' },
      upgrade: { type: 'string' },
      'batch-size': { type: 'string' },
    });
    const generate = values.generate === true;
    const dir = values.dir ?? 'migrations';
    const run: MigrationRun = { dryRun: values['dry-run'] === true || generate, actions: [] };
    const loaded = await loadCommandConfig('migrate', values.config);
    const url = storageUrl(values['database-url'], loaded);
    const hint = await missingDriver(url);
    if (hint) {
      console.error(`cellgate migrate: ${hint}`);
      return 1;
    }
    try {
      const list = await models(values.entity ?? [], loaded);
      const { createStorageFromUrl } = await import('../../host/storage.ts');
      const { storage, label } = await createStorageFromUrl(url);
      let refused: MigrationRefusedError | undefined;
      try {
        const files = generate ? [] : await readMigrationFiles(dir);
        await withMigrationFiles(files, () => observeMigration(run, () => storage.migrate(list)));
      } catch (error) {
        // The one judge of drift (storage/drift.ts) refused: print its plan, not just its message.
        if (!(error instanceof MigrationRefusedError)) throw error;
        refused = error;
      } finally {
        await storage.close();
      }
      if (generate) return await generateFiles(run, storage.name, dir, label);
      if (values.upgrade !== undefined && !refused)
        return await upgradeAfterMigration(url, values.upgrade, values['batch-size'], run.dryRun, loaded, values.entity ?? []);
      console.log(refused ? `refused on ${label}: nothing was changed` : run.dryRun ? `dry run on ${label}: nothing was changed` : `migrated ${label}`);
      for (const model of list) console.log(`  ${model.resourceType} → table ${model.table}`);
      printActions(run, refused);
      return refused ? 1 : 0;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      if (error instanceof ConfigurationError) {
        console.error(`cellgate migrate: ${error.message}`);
        // A DATABASE_URL that is no URL we know is a bad argument; a bad document is a failure.
        return error.path === 'DATABASE_URL' ? 2 : 1;
      }
      // The PostgreSQL driver already names host, port, database and cause (never the password).
      console.error(`cellgate migrate: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  });
}
