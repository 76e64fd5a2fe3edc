/**
 * The write check of a referenced entity (docs/decisions/B30.md): what a soft delete does to the
 * live records that reference the deleted one. `restrict` refuses it with 409 `REFERENCED` and a
 * bounded count; `cascade` soft-deletes them and `set_null` clears their field, each through the
 * ordinary write path (own version, audit record and event) in the same transaction and change
 * set. Everything a delete changes this way is bounded by `MAX_CASCADE_RECORDS`: past it the
 * delete is refused before anything is written.
 */
import { CellgateError } from '../../errors.ts';
import { MAX_CASCADE_RECORDS, REFERENCED_COUNT_LIMIT } from '../../limits.ts';
import type { RecordScope, StoredRecord } from '../../storage/types.ts';
import { runChangeSet, withinWrite, type WriteScope } from '../change-set/write-scope.ts';
import { nextState, write } from '../service-context.ts';
import type { WriteCheck, WriteCheckInput } from '../rules/write-checks.ts';
import type { ServiceContext } from '../service-context.ts';
import type { GovernedContext } from '../types.ts';
import type { EntityReference } from './link.ts';

// Entities whose deletes may change other records (a cascade or set_null reference points at them).
const cascading = new WeakSet<ServiceContext>();

/** Whether deleting a record of this entity may change others: such a delete runs as a change set with an id of its own. */
export const mayCascade = (ctx: ServiceContext): boolean => cascading.has(ctx);

/**
 * Runs a delete or a rollback: inside the caller's write when it gives one, else in a change set
 * of its own when the entity's deletes may cascade (so it and every record it changes share one
 * id, B30), else in a write of its own. Callers pass `work` inline: a named closure made per
 * request costs the tsx-run host a rename each time (test/examples/tsx-hot-path.test.ts).
 */
export function withinDeleteWrite<T>(ctx: ServiceContext, given: WriteScope | undefined, work: (running: WriteScope) => Promise<T>): Promise<T> {
  return given === undefined && mayCascade(ctx) ? runChangeSet(ctx.storage, crypto.randomUUID(), work) : withinWrite(ctx.storage, given, work);
}

// Records a delete may still change through cascades, per running write (nested cascades share it).
const budgets = new WeakMap<WriteScope, { remaining: number }>();

function budgetOf(running: WriteScope): { remaining: number } {
  let budget = budgets.get(running);
  if (budget === undefined) budgets.set(running, (budget = { remaining: MAX_CASCADE_RECORDS }));
  return budget;
}

const within = (record: StoredRecord): RecordScope => ({ tenantId: record.tenantId, workspaceId: record.workspaceId, cellId: record.cellId });

/** Live referrers of `record` through `reference`, at most `limit`; a record referencing itself does not count. */
async function referrers(input: WriteCheckInput, reference: EntityReference, limit: number): Promise<StoredRecord[]> {
  const { session, after } = input;
  const found = await session.listReferrers(reference.source.model, reference.field, within(after), after.id, limit + 1);
  return found.filter((record) => !(reference.source === input.ctx && record.id === after.id)).slice(0, limit);
}

/** 409 `REFERENCED` when a `restrict` reference has live referrers. */
async function restrict(input: WriteCheckInput, references: readonly EntityReference[]): Promise<void> {
  let count = 0;
  let more = false;
  const referencedBy: Array<{ resource: string; field: string; count: number }> = [];
  for (const reference of references) {
    if (more) break;
    const found = await referrers(input, reference, REFERENCED_COUNT_LIMIT + 1 - count);
    if (found.length === 0) continue;
    count += found.length;
    if (count > REFERENCED_COUNT_LIMIT) {
      count = REFERENCED_COUNT_LIMIT;
      more = true;
    }
    referencedBy.push({ resource: reference.source.resourceName, field: reference.path, count: Math.min(found.length, REFERENCED_COUNT_LIMIT) });
  }
  if (count === 0) return;
  throw new CellgateError(
    'REFERENCED',
    `This record is referenced by ${more ? `more than ${count}` : count} live record${count === 1 ? '' : 's'}; delete or move them first.`,
    { details: { count, more, referencedBy } },
  );
}

/** The next state of a referrer: soft-deleted (cascade) or with the field cleared (set_null). */
function changed(reference: EntityReference, record: StoredRecord, context: GovernedContext, now: string): StoredRecord {
  if (reference.onDelete === 'cascade') return { ...nextState(record, context, {}), deletedAt: now, deletedBy: context.actor.id, updatedAt: now };
  return nextState(record, context, { fields: { ...record.fields, [reference.field]: null } });
}

/** Soft-deletes or clears every live referrer through the write path, within the running write's budget. */
async function propagate(input: WriteCheckInput, references: readonly EntityReference[]): Promise<void> {
  const { session, running, context, after } = input;
  const budget = budgetOf(running);
  for (const reference of references) {
    const found = await referrers(input, reference, budget.remaining + 1);
    if (found.length > budget.remaining) {
      throw new CellgateError(
        'REFERENCED',
        `Deleting this record would change more than ${MAX_CASCADE_RECORDS} referencing records (on_delete ${reference.onDelete} of ${reference.source.resourceName}.${reference.path}); nothing was written. Delete them in smaller steps first.`,
        { details: { limit: MAX_CASCADE_RECORDS, referencedBy: [{ resource: reference.source.resourceName, field: reference.path }] } },
      );
    }
    budget.remaining -= found.length;
    for (const listed of found) {
      // A nested cascade may have changed a record listed here since: write from its current state.
      const current = await session.get(reference.source.model, listed, listed.id);
      if (current === null || current.deletedAt !== null || current.fields[reference.field] !== after.id) continue;
      const eventType = reference.onDelete === 'cascade' ? 'entity.deleted' : 'entity.updated';
      await write(reference.source, running, context, { eventType, before: current, after: changed(reference, current, context, after.deletedAt!) });
    }
  }
}

/** The check of one entity's incoming references: runs on its soft deletes only. */
export function onDeleteCheck(references: readonly EntityReference[]): WriteCheck {
  const restricting = references.filter((reference) => reference.onDelete === 'restrict');
  const propagating = references.filter((reference) => reference.onDelete !== 'restrict');
  if (propagating.length > 0) cascading.add(propagating[0]!.target);
  return async (input) => {
    const { before, after, session, ctx } = input;
    if (before === null || before.deletedAt !== null || after.deletedAt === null) return;
    // Lock the record first: a create referencing it either committed before (its referrer is
    // seen below) or waits, then finds it deleted (docs/decisions/B29.md).
    await session.lockLive(ctx.model, within(before), before.id, 'update');
    await restrict(input, restricting);
    await propagate(input, propagating);
  };
}
