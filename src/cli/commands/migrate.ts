/**
 * `cellgate migrate`: creates (idempotently) the tables for `DATABASE_URL`: cellgate's shared
 * tables (audit log, version state, idempotency keys) and one table per entity document, either
 * the reference host's demo entities or the documents given with `--entity`. Safe to run from
 * several processes at once. Exit 0 done, 1 database or document failure, 2 bad arguments or URL.
 */
import { defineEntity, toStorageModel } from '../../contract/entity-document/index.ts';
import { ConfigurationError } from '../../errors.ts';
import type { EntityStorageModel } from '../../storage/types.ts';
import { UsageError, parseCommandArgs, readDocumentFile, runCommand } from '../args.ts';
import { missingSqliteDriver, unreachablePostgres } from './storage-hints.ts';

const help = `Usage: cellgate migrate [--entity <file>]... [--database-url <url>]

Creates the storage tables for DATABASE_URL (idempotent; safe from several processes at once):
the audit log, version state and idempotency tables, and one table per entity major.
Without --entity, migrates the reference host's demo entities (customers, invoices, activity events).

Options:
  --entity <file>      an entity definition document (YAML or JSON); repeat for several
  --database-url <u>   memory:, sqlite:<file>, sqlite::memory:, postgres://… (env DATABASE_URL,
                       default sqlite:./.cellgate/dev.db)
  -h, --help           show this help

Exit codes: 0 migrated, 1 database or entity document failure, 2 bad arguments or DATABASE_URL.`;

async function models(files: string[]): Promise<EntityStorageModel[]> {
  const documents: Array<[string, unknown]> = [];
  if (files.length > 0) {
    for (const file of files) documents.push([file, await readDocumentFile(file)]);
  } else {
    const { DEMO_ENTITY_FILES, loadDemoEntity } = await import('../../../examples/reference-host/governed.ts');
    for (const file of DEMO_ENTITY_FILES) documents.push([file, loadDemoEntity(file)]);
  }
  return documents.map(([file, document]) => {
    try {
      return toStorageModel(defineEntity(document as Parameters<typeof defineEntity>[0]));
    } catch (error) {
      if (error instanceof ConfigurationError) throw new ConfigurationError(file, error.message);
      throw error;
    }
  });
}

/** Runs the migrations; prints one line per migrated entity table. */
export async function run(args: string[]): Promise<number> {
  return runCommand('migrate', help, args, async () => {
    const { values } = parseCommandArgs(args, {
      entity: { type: 'string', multiple: true },
      'database-url': { type: 'string' },
    });
    const url = values['database-url'] ?? process.env.DATABASE_URL;
    const hint = await missingSqliteDriver(url);
    if (hint) {
      console.error(`cellgate migrate: ${hint}`);
      return 1;
    }
    try {
      const list = await models(values.entity ?? []);
      const { createStorageFromUrl } = await import('../../../examples/reference-host/storage.ts');
      const { storage, label } = await createStorageFromUrl(url);
      try {
        await storage.migrate(list);
      } finally {
        await storage.close();
      }
      console.log(`migrated ${label}`);
      for (const model of list) console.log(`  ${model.resourceType} → table ${model.table}`);
      return 0;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      if (error instanceof ConfigurationError) {
        console.error(`cellgate migrate: ${error.message}`);
        // A DATABASE_URL that is no URL we know is a bad argument; a bad document is a failure.
        return error.path === 'DATABASE_URL' ? 2 : 1;
      }
      const cause = unreachablePostgres(url, error) ?? (error instanceof Error ? error.message : String(error));
      console.error(`cellgate migrate: ${cause}`);
      return 1;
    }
  });
}
