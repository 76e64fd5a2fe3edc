/**
 * One record carried from an older major to a newer one (docs/decisions/B40.md): the older
 * record through `up`, checked by the newer entity's codec, and the decision whether the newer
 * table needs it (first copy, or a re-copy of a record written in the older major since).
 */
import type { UpgradeLink } from '../../entity-document/upgrade-link.ts';
import type { StoredRecord } from '../../storage/types.ts';
import type { FieldIssue } from '../../errors.ts';
import type { ServiceContext } from '../service-context.ts';

/** A record `up` or the newer schema refuses. */
export interface RejectedRecord {
  id: string;
  tenantId: string;
  /** The older major's version that was refused. */
  version: number;
  /** What refused it: `up` threw, or the newer entity's fields. */
  reason: 'up' | 'schema';
  message: string;
  fields?: FieldIssue[];
}

/** The newer state of `record`, or why it is refused. */
export type Converted = { ok: true; fields: Record<string, unknown> } | { ok: false; rejected: RejectedRecord };

const MESSAGE_MAX = 300;

/** Runs `up` on the older record's business fields and checks the result as a create of the newer entity would. */
export function convert(from: ServiceContext, to: ServiceContext, link: UpgradeLink, record: StoredRecord): Converted {
  const base = { id: record.id, tenantId: record.tenantId, version: record.version };
  let output: unknown;
  try {
    output = link.up(from.codec.business(record));
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, MESSAGE_MAX);
    return { ok: false, rejected: { ...base, reason: 'up', message } };
  }
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    return { ok: false, rejected: { ...base, reason: 'up', message: 'up returned no record object' } };
  }
  const { values, issues } = to.codec.decode(output as Record<string, unknown>, false);
  if (issues.length > 0)
    return { ok: false, rejected: { ...base, reason: 'schema', message: 'The newer entity refuses the record', fields: issues.slice(0, 20) } };
  return { ok: true, fields: values };
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Whether the newer table needs `source` (the older record) given what it holds (`copied`, null
 * when never copied). A copy mirrors the older record's `updatedAt`; a newer `updatedAt` on the
 * older side is a write made since the copy; a newer one on the newer side is a write made there
 * since, which the older major does not overwrite (docs/decisions/B40.md).
 */
export function needsCopy(source: StoredRecord, fields: Record<string, unknown>, copied: StoredRecord | null): boolean {
  if (copied === null) return true;
  if (source.updatedAt > copied.updatedAt) return true;
  if (source.updatedAt < copied.updatedAt) return false;
  // Same instant (two writes in one millisecond): the content decides.
  return source.deletedAt !== copied.deletedAt || !sameJson(fields, copied.fields);
}
