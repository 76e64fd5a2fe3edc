/**
 * `cellgate verify`: checks a tenant's verifiable audit log in the database against checkpoints
 * kept outside it (docs/verifiable-history.md#verifying, docs/cli.md). Exit 0 verified, 2 tampered
 * (the first bad leaf is printed), 1 could not run (bad arguments, unreadable files, no database).
 * A progress line goes to stderr when it is a terminal.
 */
import { readFile } from 'node:fs/promises';
import { ConfigurationError } from '../../errors.ts';
import { isUuid } from '../../governed/codec.ts';
import { MAX_NOTE_LENGTH } from '../../governed/log/note.ts';
import type { VerifyLogResult } from '../../governed/log/verify.ts';
import { UsageError, parseCommandArgs } from '../args.ts';
import { loadCommandConfig, storageUrl } from '../config.ts';
import { missingDriver } from './storage-hints.ts';

const help = `Usage: cellgate verify --tenant <uuid> --checkpoint <file> [--checkpoint <file> …] [options]

Recomputes every leaf of the tenant's audit log from the stored records, rebuilds the Merkle tree
and checks it against checkpoints you kept outside the database (GET /v1/audit/checkpoint, or your
checkpoint sink's copy): their signatures, their roots, that none is newer than the log, that the
host's latest checkpoint is not older than yours, and that every audit record is in the log.

Options:
  --tenant <uuid>         the tenant whose log to verify (required)
  --checkpoint <file>     a signed checkpoint kept earlier (repeat for several; at least one)
  --verifier-key <vkey>   the log's verifier key, <name>+<hash>+<base64> (default: env
                          CELLGATE_LOG_VERIFIER_KEY, else the key of CELLGATE_LOG_SIGNING_KEY)
  --database-url <u>      memory:, sqlite:<file>, postgres://… (default: the configuration's
                          storage, else env DATABASE_URL, else sqlite:./.cellgate/dev.db)
  --export <file>         verify an NDJSON export of the log (exportLogNdjson) instead of a database
  --config <file>         configuration file (default: cellgate.config.ts, … in the current directory)
  -h, --help              show this help

Exit codes: 0 verified, 2 tampered (the first bad record is named), 1 could not run.`;

/** The verifier key: the flag, the environment's, or the one of the environment's signing key. */
async function verifierKey(flag: string | undefined): Promise<string> {
  if (flag !== undefined) return flag;
  if (process.env.CELLGATE_LOG_VERIFIER_KEY) return process.env.CELLGATE_LOG_VERIFIER_KEY;
  if (process.env.CELLGATE_LOG_SIGNING_KEY) return (await import('../../governed/log/note-keys.ts')).verifierKeyOf(process.env.CELLGATE_LOG_SIGNING_KEY);
  throw new UsageError('give --verifier-key (or set CELLGATE_LOG_VERIFIER_KEY)');
}

/** Prints the verdict; its exit code. */
function report(result: VerifyLogResult): number {
  if (result.status === 'verified') {
    console.log(`verified: ${result.size} leaves, root ${result.root}, consistent with ${result.checkpoints} kept checkpoint(s)`);
    return 0;
  }
  const where =
    result.firstBadIndex === null ? '' : ` (first bad leaf: ${result.firstBadIndex}${result.auditId === null ? '' : `, audit record ${result.auditId}`})`;
  console.log(`tampered: ${result.reason}${where}`);
  return 2;
}

/** `--export <file>`: the log of an NDJSON export, read line by line, no database. */
async function verifyExport(file: string, tenantId: string, checkpoints: string[], key: string): Promise<number> {
  const [{ createReadStream }, { createInterface }, { ndjsonLogSource }, { verifyLog, VerifyLogError }] = await Promise.all([
    import('node:fs'),
    import('node:readline'),
    import('../../governed/log/ndjson.ts'),
    import('../../governed/log/verify.ts'),
  ]);
  const stream = createReadStream(file, 'utf8');
  await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject)).catch(() => {
    throw new UsageError(`cannot read the export ${file.slice(0, 200)}`);
  });
  try {
    const log = await ndjsonLogSource(createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }));
    return report(await verifyLog({ log, tenantId, checkpoints, verifierKeys: [key] }));
  } catch (error) {
    if (error instanceof VerifyLogError) throw new UsageError(error.message);
    throw error;
  }
}

async function verify(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, {
    tenant: { type: 'string' },
    checkpoint: { type: 'string', multiple: true },
    'verifier-key': { type: 'string' },
    'database-url': { type: 'string' },
    export: { type: 'string' },
    config: { type: 'string' },
  });
  const tenantId = values.tenant?.toLowerCase();
  if (tenantId === undefined || !isUuid(tenantId)) throw new UsageError('--tenant <uuid> is required');
  const files = (values.checkpoint ?? []) as string[];
  if (files.length === 0) throw new UsageError('--checkpoint <file> is required: a checkpoint kept earlier');
  const checkpoints: string[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => {
      throw new UsageError(`cannot read the checkpoint ${file.slice(0, 200)}`);
    });
    if (text.length > MAX_NOTE_LENGTH) throw new UsageError(`${file.slice(0, 200)} is too long for a checkpoint`);
    checkpoints.push(text);
  }
  const key = await verifierKey(values['verifier-key']);
  if (values.export !== undefined) return verifyExport(values.export, tenantId, checkpoints, key);
  const url = storageUrl(values['database-url'], await loadCommandConfig('verify', values.config));
  const hint = await missingDriver(url);
  if (hint) throw new UsageError(hint);
  const [{ createStorageFromUrl }, { verifyLog, VerifyLogError }] = await Promise.all([
    import('../../host/storage.ts'),
    import('../../governed/log/verify.ts'),
  ]);
  const { storage } = await createStorageFromUrl(url);
  try {
    if (storage.log === undefined) throw new UsageError(`the storage ${storage.name} keeps no verifiable log`);
    const progress = process.stderr.isTTY === true;
    const result = await verifyLog({
      log: storage.log,
      tenantId,
      checkpoints,
      verifierKeys: [key],
      ...(progress ? { onProgress: (checked: number, size: number) => process.stderr.write(`\rverified ${checked} of ${size} leaves`) } : {}),
    }).catch((error: unknown) => {
      if (error instanceof VerifyLogError) throw new UsageError(error.message);
      throw error;
    });
    if (progress) process.stderr.write('\n');
    return report(result);
  } finally {
    await storage.close();
  }
}

/** Runs `cellgate verify`. */
export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(help);
    return 0;
  }
  try {
    return await verify(args);
  } catch (error) {
    // Anything that stops the check is "could not run" (1): 2 is kept for a tampered log.
    const message = error instanceof UsageError || error instanceof ConfigurationError || error instanceof Error ? error.message : String(error);
    console.error(`cellgate verify: ${message}`);
    return 1;
  }
}
