/**
 * Rollback across entity shapes (docs/evolving-entities.md#history-across-shapes): the fields a
 * rollback or restore writes are taken from the stored state of the target version, read through
 * the entity as it is now. A field added since that version keeps the record's current value (it
 * had none then; a backfilled default stays). Every value is checked by the codec like a value a
 * client sends: a state stored before a type change, an enum narrowed or a field made required is
 * refused with 422 `INVALID_TARGET_VERSION` naming each field and why, so a rollback never writes
 * a value the current entity rejects.
 */
import { CellgateError, type FieldIssue } from '../errors.ts';
import type { StoredRecord } from '../storage/types.ts';
import { checkBusinessValue, type EntityCodec } from './codec.ts';

const jsonKind = (value: unknown) => (Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value);

/**
 * The business fields a rollback to `target` writes over `current`; throws the 422 when the
 * target holds a value the entity no longer accepts.
 */
export function restorableFields(codec: EntityCodec, current: StoredRecord, target: StoredRecord): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const issues: FieldIssue[] = [];
  for (const field of codec.fields) {
    const stored = Object.hasOwn(target.fields, field.name) ? target.fields[field.name] : current.fields[field.name];
    if (stored === null || stored === undefined) {
      if (field.descriptor.nullable || field.descriptor.optional) fields[field.name] = null;
      else issues.push({ path: field.camel, message: 'holds no value; the field is required now' });
      continue;
    }
    const checked = checkBusinessValue(field, stored);
    if (checked.ok) fields[field.name] = checked.value;
    // The kind of value, never the value: the message must not echo a sensitive field.
    else issues.push({ path: field.camel, message: `holds a stored ${jsonKind(stored)} the entity no longer accepts (${checked.message})` });
  }
  if (issues.length > 0) {
    const named = issues.map((issue) => `${issue.path} ${issue.message}`).join('; ');
    throw new CellgateError(
      'INVALID_TARGET_VERSION',
      `version ${target.version} was stored in an earlier shape of the entity and cannot be restored as it is: ${named}. Roll back to a later version, or write the values by PATCH`,
      { details: { targetVersion: target.version, currentVersion: current.version, fields: issues } },
    );
  }
  return fields;
}
