/**
 * Signed checkpoints of the tenants' logs (docs/verifiable-history.md#checkpoints): on demand
 * (`GET /v1/audit/checkpoint`, `checkpoints.checkpoint(tenantId)`), and after writes once
 * `everyLeaves` leaves or `everySeconds` seconds passed since the tenant's last one. Each is kept
 * in the log store and handed to the app's `sink` (a bucket, a witness, a ticket), so that the
 * database owner alone cannot rewrite the history they cover.
 */
import { ConfigurationError } from '../../errors.ts';
import { CHECKPOINT_EVERY_LEAVES, CHECKPOINT_EVERY_SECONDS } from '../../limits.ts';
import { rootAt } from '../../storage/merkle/read.ts';
import type { LogCheckpoint, LogStore, StorageDriver } from '../../storage/types.ts';
import type { Logger } from '../../logging.ts';
import type { NoteSigner } from './note-keys.ts';
import { checkpointBody, signNote } from './note.ts';

/** Options of the verifiable log (`createGovernedApi({ log })`). */
export interface VerifiableLogOptions {
  /** Signs checkpoints: `await noteSigner(process.env.CELLGATE_LOG_SIGNING_KEY)`, or your own (a KMS). */
  signer: NoteSigner;
  /**
   * Names the log in checkpoints: a tenant's origin is `<origin>/<tenantId>`. Use your host name
   * so checkpoints of two deployments never pass for each other.
   * @default 'cellgate.local/audit'
   */
  origin?: string;
  /** Sign a checkpoint after a write once this many leaves were added since the tenant's last one. @default 1000 */
  everyLeaves?: number;
  /** …or once this many seconds passed since it (checked after writes). @default 60 */
  everySeconds?: number;
  /**
   * Receives every checkpoint signed, after it is kept: copy it where the database owner cannot
   * write. A throwing sink is logged (`log.sink_failed`) and does not fail the write or the read.
   */
  sink?: (checkpoint: LogCheckpoint) => void | Promise<void>;
}

/** Issues and keeps checkpoints. */
export interface Checkpoints {
  /** The origin line of a tenant's checkpoints. */
  origin(tenantId: string): string;
  /** Signs (and keeps, and sinks) a checkpoint of every leaf committed now; the kept one when the log has not grown. */
  checkpoint(tenantId: string): Promise<LogCheckpoint>;
  /** After a committed write of the tenant: signs one in the background when it is due. */
  afterWrite(tenantId: string): void;
}

const ORIGIN = /^[A-Za-z0-9][A-Za-z0-9._~:/-]{0,199}$/;

function positive(value: number | undefined, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigurationError(path, 'must be a positive integer.');
  return value;
}

/** Builds the checkpoints of `storage`'s log; throws {@link ConfigurationError} on a bad option. */
export function createCheckpoints(storage: StorageDriver, options: VerifiableLogOptions, logger?: Logger): Checkpoints {
  if (storage.log === undefined) throw new ConfigurationError('log', `the storage driver ${storage.name} keeps no verifiable log.`);
  if (typeof options.signer?.sign !== 'function')
    throw new ConfigurationError('log.signer', 'is required: await noteSigner(signerKey), or an object with name, keyHash and sign().');
  const origin = options.origin ?? 'cellgate.local/audit';
  if (!ORIGIN.test(origin)) throw new ConfigurationError('log.origin', 'must be 1 to 200 characters of letters, digits and . _ ~ : / -, without spaces.');
  const everyLeaves = positive(options.everyLeaves, CHECKPOINT_EVERY_LEAVES, 'log.everyLeaves');
  const everyMs = positive(options.everySeconds, CHECKPOINT_EVERY_SECONDS, 'log.everySeconds') * 1000;
  const log: LogStore = storage.log;
  // Per tenant in this process: writes since the last checkpoint and when it was signed. A
  // process that restarts counts afresh; the next due write or read signs again.
  const since = new Map<string, { writes: number; at: number }>();
  // One signing per tenant at a time: concurrent requests share it.
  const signing = new Map<string, Promise<LogCheckpoint>>();

  const sign = async (tenantId: string): Promise<LogCheckpoint> => {
    const size = await log.size(tenantId);
    const kept = await log.latestCheckpoint(tenantId);
    if (kept !== null && kept.size === size) return kept;
    const root = await rootAt(log, tenantId, size);
    const note = await signNote(checkpointBody({ origin: `${origin}/${tenantId}`, size, root }), [options.signer]);
    const checkpoint: LogCheckpoint = { tenantId, size, note, createdAt: new Date().toISOString() };
    await log.putCheckpoint(checkpoint);
    since.set(tenantId, { writes: 0, at: Date.now() });
    if (options.sink !== undefined) {
      try {
        await options.sink(checkpoint);
      } catch (error) {
        logger?.error({ event: 'log.sink_failed', tenantId, size, error: error instanceof Error ? error.message : String(error) }, 'checkpoint sink failed');
      }
    }
    return checkpoint;
  };

  const checkpoint = (tenantId: string): Promise<LogCheckpoint> => {
    let pending = signing.get(tenantId);
    if (pending === undefined) {
      pending = sign(tenantId).finally(() => signing.delete(tenantId));
      signing.set(tenantId, pending);
    }
    return pending;
  };

  return {
    origin: (tenantId) => `${origin}/${tenantId}`,
    checkpoint,
    afterWrite(tenantId) {
      const state = since.get(tenantId) ?? { writes: 0, at: Date.now() };
      state.writes += 1;
      since.set(tenantId, state);
      if (state.writes < everyLeaves && Date.now() - state.at < everyMs) return;
      state.writes = 0;
      state.at = Date.now();
      checkpoint(tenantId).catch((error: unknown) =>
        logger?.error({ event: 'log.checkpoint_failed', tenantId, error: error instanceof Error ? error.message : String(error) }, 'checkpoint failed'),
      );
    },
  };
}
