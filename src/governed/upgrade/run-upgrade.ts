/**
 * The online upgrade between two majors of one entity (docs/evolving-entities.md#majors-and-upgrades,
 * docs/decisions/B40.md). Every record of the older major is copied to the newer one through
 * `up`, in batches of `batchSize` walked by id across tenants, each batch one transaction that
 * also stores the progress (the last id copied), so a run killed at any point resumes after the
 * last committed batch. A copy keeps the record's id and is written by the governed write path
 * with the audit event `entity.upgraded` (its reason names the older record and version), so the
 * newer history starts there and the older history stays where it was.
 *
 * Writes to the older major during the copy are carried over by passes: a pass walks the whole
 * older table again and re-copies the records written since their copy; the run ends at the first
 * pass that copies nothing, or after `UPGRADE_MAX_PASSES` (then `settled: false`).
 */
import { CellgateError, ConfigurationError } from '../../errors.ts';
import type { UpgradeLink } from '../../entity-document/upgrade-link.ts';
import { UPGRADE_BATCH_DEFAULT, UPGRADE_BATCH_MAX, UPGRADE_DRY_RUN_LIST, UPGRADE_MAX_PASSES } from '../../limits.ts';
import type { StorageSession, StoredRecord, UpgradeOperations } from '../../storage/types.ts';
import { runChangeSet } from '../change-set/write-scope.ts';
import { write, type ServiceContext } from '../service-context.ts';
import type { GovernedContext } from '../types.ts';
import { convert, needsCopy, type RejectedRecord } from './copy-record.ts';

/** Options of an upgrade run. */
export interface UpgradeOptions {
  /** Records per batch (one transaction each). @default 200, at most 500 */
  batchSize?: number;
  /** List the records `up` or the newer schema refuses; write nothing. */
  dryRun?: boolean;
  /** Called after each committed batch (a dry run: each batch read). */
  onProgress?: (progress: UpgradeProgress) => void;
  /** The actor id audit records of the copies name. @default 'cellgate-upgrade' */
  actorId?: string;
}

/** Where a run is. */
export interface UpgradeProgress {
  /** 1 for the first walk of the older table, then one more per catch-up pass. */
  pass: number;
  /** Records of the older major read in this pass so far. */
  read: number;
  /** Records written to the newer major in this pass so far (first copies and re-copies). */
  copied: number;
  /** Records refused in this pass so far. */
  rejected: number;
}

/** The answer of an upgrade run. */
export interface UpgradeResult {
  from: string;
  to: string;
  dryRun: boolean;
  /** Passes made by this run (a resumed pass counts once). */
  passes: number;
  /** Records read over every pass of this run. */
  read: number;
  /** Records written to the newer major by this run. */
  copied: number;
  /** True when the last pass copied nothing: the newer major holds every record of the older one. */
  settled: boolean;
  /** Records refused by the last pass (at most `UPGRADE_DRY_RUN_LIST`), in id order; they stay in the older major only. */
  rejected: RejectedRecord[];
  /** Refused records beyond the list. */
  rejectedOmitted: number;
}

/** The stored progress of a run (JSON in the driver's progress row). */
interface Stored {
  pass: number;
  /** Last id copied in this pass; null at its start. */
  after: string | null;
  /** Records copied in this pass so far (a pass that copied nothing ends the run). */
  copied: number;
  /** True once a pass copied nothing. */
  settled: boolean;
}

/** The progress row's name: one per pair of tables. */
export const upgradeProgressName = (from: ServiceContext, to: ServiceContext): string => `upgrade:${from.model.table}>${to.model.table}`;

function operationsOf(session: StorageSession, driverName: string): UpgradeOperations {
  if (session.upgrade === undefined) throw new ConfigurationError('storage', `the ${driverName} storage has no upgrade operations (session.upgrade).`);
  return session.upgrade;
}

function batchSizeOf(options: UpgradeOptions): number {
  const size = options.batchSize ?? UPGRADE_BATCH_DEFAULT;
  if (!Number.isSafeInteger(size) || size < 1 || size > UPGRADE_BATCH_MAX) {
    throw new CellgateError('VALIDATION_ERROR', `batchSize must be an integer from 1 to ${UPGRADE_BATCH_MAX}`, {
      details: { fields: [{ path: 'batchSize', message: `Must be an integer from 1 to ${UPGRADE_BATCH_MAX}` }] },
    });
  }
  return size;
}

/** The governed context a copy is written with: a service actor of the record's tenant. */
function copyContext(actorId: string, record: StoredRecord): GovernedContext {
  return { actor: { id: actorId, type: 'service', tenantId: record.tenantId, roles: [], workspaces: {}, permissions: [] } };
}

/** Copies one batch in its own transaction with its progress; answers the records read and written. */
async function copyBatch(
  from: ServiceContext,
  to: ServiceContext,
  link: UpgradeLink,
  state: Stored,
  size: number,
  actorId: string,
  rejected: (record: RejectedRecord) => void,
): Promise<{ read: number; copied: number; next: Stored }> {
  const name = upgradeProgressName(from, to);
  return runChangeSet(to.storage, crypto.randomUUID(), async (running) => {
    const ops = operationsOf(running.session, to.storage.name);
    const batch = await ops.scanRecords(from.model, state.after, size);
    if (batch.length === 0) return { read: 0, copied: 0, next: state };
    let copied = 0;
    const refused: RejectedRecord[] = [];
    for (const source of batch) {
      const converted = convert(from, to, link, source);
      if (!converted.ok) {
        refused.push(converted.rejected);
        continue;
      }
      const current = await running.session.get(to.model, source, source.id);
      if (!needsCopy(source, converted.fields, current)) continue;
      // The copy mirrors the older record's authorship and times: the upgrade is not a change of its content.
      const after: StoredRecord = {
        ...source,
        version: (current?.version ?? 0) + 1,
        fields: converted.fields,
      };
      await write(to, running, copyContext(actorId, source), {
        eventType: 'entity.upgraded',
        before: current,
        after,
        reason: `upgraded from ${from.resourceType} ${source.id} version ${source.version}`,
      });
      copied++;
    }
    const next: Stored = { pass: state.pass, after: batch.at(-1)!.id, copied: state.copied + copied, settled: false };
    await ops.putProgress(name, JSON.stringify(next));
    // Refusals are reported once the batch has committed (a retried transaction reports them once).
    running.afterCommit(() => {
      for (const record of refused) rejected(record);
    });
    return { read: batch.length, copied, next };
  });
}

const CONFLICT_RETRIES = 3;

/**
 * Runs a batch again when a write to the newer major moved a record between the batch's read and
 * its write (409 CONFLICT rolled the batch back): the next attempt reads the record anew.
 */
async function withConflictRetry<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof CellgateError && error.code === 'CONFLICT') || tries >= CONFLICT_RETRIES) throw error;
    }
  }
}

/** The stored progress, or a first pass. A settled run starts a new verification pass. */
async function loadProgress(from: ServiceContext, to: ServiceContext): Promise<Stored> {
  const text = await to.storage.transaction((session) => operationsOf(session, to.storage.name).getProgress(upgradeProgressName(from, to)));
  if (text === null) return { pass: 1, after: null, copied: 0, settled: false };
  const stored = JSON.parse(text) as Stored;
  return stored.settled ? { pass: stored.pass + 1, after: null, copied: 0, settled: false } : stored;
}

async function saveSettled(from: ServiceContext, to: ServiceContext, state: Stored): Promise<void> {
  await to.storage.transaction((session) =>
    operationsOf(session, to.storage.name).putProgress(upgradeProgressName(from, to), JSON.stringify({ ...state, settled: true })),
  );
}

/** Reads every record through `up` and the newer schema and lists the refused ones; writes nothing. */
async function dryRun(from: ServiceContext, to: ServiceContext, link: UpgradeLink, size: number, options: UpgradeOptions): Promise<UpgradeResult> {
  const rejected: RejectedRecord[] = [];
  let omitted = 0;
  let read = 0;
  let after: string | null = null;
  for (;;) {
    const batch: StoredRecord[] = await to.storage.transaction((session) => operationsOf(session, to.storage.name).scanRecords(from.model, after, size));
    if (batch.length === 0) break;
    for (const record of batch) {
      const converted = convert(from, to, link, record);
      if (converted.ok) continue;
      if (rejected.length < UPGRADE_DRY_RUN_LIST) rejected.push(converted.rejected);
      else omitted++;
    }
    read += batch.length;
    after = batch.at(-1)!.id;
    options.onProgress?.({ pass: 1, read, copied: 0, rejected: rejected.length + omitted });
  }
  return { from: from.resourceType, to: to.resourceType, dryRun: true, passes: 1, read, copied: 0, settled: false, rejected, rejectedOmitted: omitted };
}

/**
 * Runs the upgrade from `from` to `to` (the newer major's context, whose entity was defined with
 * `link`). Resumes a stored run; see the module comment for passes and what `settled` means.
 */
export async function runUpgrade(from: ServiceContext, to: ServiceContext, link: UpgradeLink, options: UpgradeOptions = {}): Promise<UpgradeResult> {
  const size = batchSizeOf(options);
  if (options.dryRun) return dryRun(from, to, link, size, options);
  const actorId = options.actorId ?? 'cellgate-upgrade';
  // Every pass reads every record, so the refusals of the last pass are the answer.
  let rejected: RejectedRecord[] = [];
  let omitted = 0;
  const reject = (record: RejectedRecord) => {
    if (rejected.length < UPGRADE_DRY_RUN_LIST) rejected.push(record);
    else omitted++;
  };
  let state = await loadProgress(from, to);
  let passes = 0;
  let read = 0;
  let copied = 0;
  while (passes < UPGRADE_MAX_PASSES) {
    passes++;
    rejected = [];
    omitted = 0;
    let passRead = 0;
    let passCopied = 0;
    for (;;) {
      const batch = await withConflictRetry(() => copyBatch(from, to, link, state, size, actorId, reject));
      if (batch.read === 0) break;
      state = batch.next;
      passRead += batch.read;
      passCopied += batch.copied;
      options.onProgress?.({ pass: state.pass, read: passRead, copied: passCopied, rejected: rejected.length + omitted });
    }
    read += passRead;
    copied += passCopied;
    // A pass that copied nothing (counting the part before a resume) leaves the newer table in step.
    if (state.copied === 0) {
      await saveSettled(from, to, state);
      return { from: from.resourceType, to: to.resourceType, dryRun: false, passes, read, copied, settled: true, rejected, rejectedOmitted: omitted };
    }
    state = { pass: state.pass + 1, after: null, copied: 0, settled: false };
  }
  return { from: from.resourceType, to: to.resourceType, dryRun: false, passes, read, copied, settled: false, rejected, rejectedOmitted: omitted };
}
