/**
 * `cellgate migrate --upgrade <entity key>` (docs/cli.md, docs/decisions/B40.md): after the
 * tables are migrated, copies every record of the older major to the newer one through the `up`
 * of the configuration's `defineEntity(v2, { from: v1, up })`, with a progress line on a terminal
 * (one line per pass otherwise). Resumable: a killed run goes on where the last batch committed.
 */
import type { EntityDefinitionDocument } from '../../entity-document/index.ts';
import { majorVersion } from '../../entity-document/index.ts';
import { createGovernedApi } from '../../governed/http/api.ts';
import type { UpgradeOptions, UpgradeProgress, UpgradeResult } from '../../governed/upgrade/run-upgrade.ts';
import type { StorageDriver } from '../../storage/types.ts';

/** The path name each major is mounted under for the run (never served): distinct per major. */
const mountName = (entity: EntityDefinitionDocument) => `${entity.key.replace(/[._]/g, '-')}-v${majorVersion(entity)}`;

function progressPrinter(): { onProgress: (progress: UpgradeProgress) => void; done: () => void } {
  const tty = process.stdout.isTTY === true;
  let pass = 0;
  let last: UpgradeProgress | undefined;
  const line = (p: UpgradeProgress) => `pass ${p.pass}: ${p.read} read, ${p.copied} copied, ${p.rejected} refused`;
  return {
    onProgress(progress) {
      if (tty) process.stdout.write(`\r${line(progress)}`);
      else if (last !== undefined && progress.pass !== pass) console.log(line(last));
      pass = progress.pass;
      last = progress;
    },
    done() {
      if (tty && last !== undefined) process.stdout.write('\n');
      else if (last !== undefined) console.log(line(last));
    },
  };
}

/** Runs the upgrade of `entityKey` over `storage` (already migrated); prints the result; answers the exit code. */
export async function runUpgradeCommand(
  storage: StorageDriver,
  entities: readonly EntityDefinitionDocument[],
  entityKey: string,
  options: Pick<UpgradeOptions, 'batchSize' | 'dryRun'>,
): Promise<number> {
  const resources = Object.fromEntries(entities.map((entity) => [mountName(entity), entity]));
  // Not served: the API is only the owner of both majors' contexts, so the secret is never used.
  const api = createGovernedApi({ storage, auth: { secret: crypto.randomUUID() + crypto.randomUUID() }, resources, auditRoutes: false, eventRoutes: false });
  const printer = progressPrinter();
  let result: UpgradeResult;
  try {
    result = await api.upgrade(entityKey, { ...options, onProgress: printer.onProgress });
  } finally {
    printer.done();
  }
  const verb = result.dryRun ? 'dry run' : 'upgraded';
  console.log(
    `${verb} ${result.from} → ${result.to}: ${result.read} read, ${result.copied} copied in ${result.passes} pass(es)${result.settled ? ', settled' : ''}`,
  );
  for (const record of result.rejected) {
    const fields = record.fields?.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    console.log(
      `  refused ${record.id} (tenant ${record.tenantId}, version ${record.version}) by ${record.reason}: ${record.message}${fields ? ` (${fields})` : ''}`,
    );
  }
  if (result.rejectedOmitted > 0) console.log(`  … and ${result.rejectedOmitted} more refused`);
  if (!result.dryRun && !result.settled) console.log('not settled: the older major was still being written; run it again once those writes stop.');
  return result.rejected.length > 0 || (!result.dryRun && !result.settled) ? 1 : 0;
}
