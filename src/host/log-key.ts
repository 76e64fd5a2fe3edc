/**
 * The reference host's checkpoint signer (docs/reference-host.md, docs/verifiable-history.md):
 * `CELLGATE_LOG_SIGNING_KEY` in the note signer-key format, or, in development, a key generated once
 * per data directory (kept in `<data directory>/log-signing.key`, mode 0600) so checkpoints keep
 * verifying across restarts; a per-run key when the storage has no directory (memory, PostgreSQL).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigurationError, generateNoteKey, noteSigner, verifierKeyOf, type NoteSigner } from 'cellgate';
import { parseStorageUrl } from 'cellgate/node';
import { DEFAULT_DATABASE_URL } from './storage.ts';

/** Name of the development key's file in the data directory. */
export const DEV_LOG_KEY_FILE = 'log-signing.key';
/** Key name of the development keys. */
const DEV_KEY_NAME = 'cellgate.local';

/** The signer, its verifier key, and the banner line that says where it came from. */
export interface HostLogSigner {
  signer: NoteSigner;
  verifierKey: string;
  banner: string;
}

/** The folder holding the data of a storage URL, or null when it has none (memory, PostgreSQL). */
function dataDirectory(databaseUrl: string | undefined): string | null {
  const url = databaseUrl?.trim() || DEFAULT_DATABASE_URL;
  const parsed = parseStorageUrl(url);
  if (parsed.kind === 'sqlite') return parsed.filename === ':memory:' ? null : dirname(resolve(parsed.filename));
  if (parsed.kind === 'pglite') return parsed.dataDir.startsWith('memory://') ? null : resolve(parsed.dataDir);
  return null;
}

/** Reads `CELLGATE_LOG_SIGNING_KEY`, or makes the development key. */
export async function logSignerFromEnv(env: Record<string, string | undefined>): Promise<HostLogSigner> {
  const configured = env.CELLGATE_LOG_SIGNING_KEY?.trim();
  if (configured) {
    const signer = await noteSigner(configured, 'CELLGATE_LOG_SIGNING_KEY');
    const verifierKey = await verifierKeyOf(configured);
    return { signer, verifierKey, banner: `log key       ${verifierKey} (CELLGATE_LOG_SIGNING_KEY)` };
  }
  const folder = dataDirectory(env.DATABASE_URL);
  let signerKey: string;
  let where: string;
  if (folder === null) {
    signerKey = (await generateNoteKey(DEV_KEY_NAME)).signerKey;
    where = 'per-run key: set CELLGATE_LOG_SIGNING_KEY for checkpoints that verify across restarts';
  } else {
    const file = join(folder, DEV_LOG_KEY_FILE);
    if (existsSync(file)) signerKey = readFileSync(file, 'utf8').trim();
    else {
      signerKey = (await generateNoteKey(DEV_KEY_NAME)).signerKey;
      mkdirSync(folder, { recursive: true });
      writeFileSync(file, `${signerKey}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    where = `dev key of ${file}`;
  }
  try {
    const signer = await noteSigner(signerKey, DEV_LOG_KEY_FILE);
    const verifierKey = await verifierKeyOf(signerKey);
    return { signer, verifierKey, banner: `log key       ${verifierKey} (${where})` };
  } catch (error) {
    if (error instanceof ConfigurationError)
      throw new ConfigurationError(DEV_LOG_KEY_FILE, `in ${folder} is not a note signer key; remove it to generate a new one`);
    throw error;
  }
}
