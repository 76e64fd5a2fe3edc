/**
 * The write check of a referencing entity (docs/decisions/B29.md): every reference a write sets
 * or changes must point at a live record of the target entity in the record's scope, or the write
 * is refused with 422 `REFERENCE_NOT_FOUND` and nothing is stored. The target is read with a lock
 * (`StorageSession.lockLive`), so a concurrent delete of it waits for this transaction or wins
 * before it; never both.
 */
import { CellgateError, type FieldIssue } from '../../errors.ts';
import type { StoredRecord } from '../../storage/types.ts';
import type { WriteCheck } from '../rules/write-checks.ts';
import { targetScope, type EntityReference } from './link.ts';

/** The references a write must check: every one on a record coming alive (create, restore), else those whose value changes. */
function touched(references: readonly EntityReference[], before: StoredRecord | null, after: StoredRecord): EntityReference[] {
  if (after.deletedAt !== null) return [];
  const wholeRecord = before === null || before.deletedAt !== null;
  return references.filter(({ field }) => {
    const value = after.fields[field];
    return value !== null && value !== undefined && (wholeRecord || value !== before.fields[field]);
  });
}

/** The check of one entity's outgoing references. */
export function referenceCheck(references: readonly EntityReference[]): WriteCheck {
  return async ({ session, before, after }) => {
    const issues: FieldIssue[] = [];
    for (const reference of touched(references, before, after)) {
      const id = String(after.fields[reference.field]);
      if (await session.lockLive(reference.target.model, targetScope(reference, after), id)) continue;
      issues.push({ path: reference.path, message: `No ${reference.target.entity.key} record ${id} exists here (it is absent, deleted or in another scope)` });
    }
    if (issues.length > 0) {
      throw new CellgateError('REFERENCE_NOT_FOUND', `${issues.map((issue) => issue.path).join(', ')} must reference a live record; nothing was written.`, {
        details: { fields: issues },
      });
    }
  };
}
