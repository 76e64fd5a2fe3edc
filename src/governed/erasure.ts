/**
 * What an erasure changes (docs/erasure.md), as pure functions: which fields it erases, the value
 * an erased field holds afterwards, and the rewrite of a stored state and of an audit or event
 * change. The operation that applies them is `service-erase.ts`.
 */
import type { FieldDescriptor } from '../entity-document/index.ts';
import { validationError } from '../errors.ts';
import type { StoredRecord } from '../storage/types.ts';
import { REDACTED, redactionClassOf } from './audit/index.ts';
import type { BusinessField, EntityCodec } from './codec.ts';

/** Erased text of a required string field without a format or enum. */
export const ERASED_TEXT = '[erased]';

/**
 * The value an erased field holds from now on, in the record and in every stored version state.
 * A field that may be null (nullable or optional) becomes null. A required one gets a fixed
 * placeholder its type and format accept, so the record stays valid and later writes still pass
 * validation: `[erased]`, `erased@erased.invalid`, `https://erased.invalid/`, the nil UUID, the
 * epoch, the first `enum` value, 0, false, `{}` or `[]`.
 */
export function erasedValue(field: FieldDescriptor): unknown {
  if (field.nullable || field.optional) return null;
  switch (field.type) {
    case 'string':
      if (field.enum !== undefined) return field.enum[0];
      if (field.format === 'email') return 'erased@erased.invalid';
      if (field.format === 'url') return 'https://erased.invalid/';
      if (field.format === 'uuid') return '00000000-0000-0000-0000-000000000000';
      if (field.format === 'date-time') return '1970-01-01T00:00:00.000Z';
      return ERASED_TEXT;
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return {};
    case 'array':
      return [];
  }
}

/** The fields an erasure covers, with the value each holds afterwards. */
export interface ErasurePlan {
  fields: readonly BusinessField[];
  /** camelCase names: what audit diffs and snapshots use. */
  camel: ReadonlySet<string>;
  /** snake_case name → value after erasure. */
  values: ReadonlyMap<string, unknown>;
}

/**
 * The fields to erase: the ones named (camelCase, any business field), or by default every field
 * the entity marks as personal: `sensitive`, `credential`, or `redact: hash | length`. Names that
 * are not business fields, or nothing to erase, are a 400 `VALIDATION_ERROR`.
 */
export function erasurePlan(codec: EntityCodec, names: readonly string[] | undefined): ErasurePlan {
  let fields: BusinessField[];
  if (names === undefined) {
    fields = codec.fields.filter((field) => redactionClassOf(field.descriptor) !== 'value');
    if (fields.length === 0)
      throw validationError('This entity marks no field as personal data; name the fields to erase', [{ path: 'fields', message: 'Required for this entity' }]);
  } else {
    const unknown = names.filter((name) => codec.field(name) === undefined);
    if (unknown.length > 0)
      throw validationError(
        'Unknown fields to erase',
        unknown.map((name) => ({ path: 'fields', message: `${name} is not a field of this entity` })),
      );
    if (names.length === 0) throw validationError('Name at least one field to erase', [{ path: 'fields', message: 'Must not be empty' }]);
    fields = [...new Set(names)].map((name) => codec.field(name)!);
  }
  return { fields, camel: new Set(fields.map((field) => field.camel)), values: new Map(fields.map((field) => [field.name, erasedValue(field.descriptor)])) };
}

/** A stored state with the erased fields replaced, or null when it holds none of their values. */
export function erasedState(state: StoredRecord, plan: ErasurePlan): StoredRecord | null {
  let changed = false;
  const fields = { ...state.fields };
  for (const [name, value] of plan.values) {
    const current = fields[name];
    if (current === null || current === undefined || JSON.stringify(current) === JSON.stringify(value)) continue;
    fields[name] = value;
    changed = true;
  }
  return changed ? { ...state, fields } : null;
}

/** The first segment of a JSON Pointer, unescaped. */
function topField(path: unknown): string {
  const segment = typeof path === 'string' ? (path.slice(1).split('/')[0] ?? '') : '';
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A snapshot value the redaction already wrote in place of a value: it holds nothing to erase. */
function isRedactionMarker(value: unknown): boolean {
  if (value === REDACTED || value === null || value === undefined) return true;
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  const marker = value as Record<string, unknown>;
  return (marker.redacted === 'hash' && typeof marker.hash === 'string') || (marker.redacted === 'length' && typeof marker.length === 'number');
}

/**
 * An audit (or event) change with the erased fields' values removed: a diff operation on an
 * erased field keeps its `op`, `path`, `valueHash` and `valueLength` and loses `value`; a snapshot
 * keeps redaction markers and gets `[REDACTED]` for any value. Null when nothing changed.
 */
export function erasedChange(change: { diff: unknown; snapshot: unknown }, plan: ErasurePlan): { diff: unknown; snapshot: unknown } | null {
  let changed = false;
  let diff = change.diff;
  if (Array.isArray(diff)) {
    diff = diff.map((operation: unknown) => {
      if (operation === null || typeof operation !== 'object' || !Object.hasOwn(operation, 'value')) return operation;
      if (!plan.camel.has(topField((operation as { path?: unknown }).path))) return operation;
      changed = true;
      const { value: _value, ...rest } = operation as Record<string, unknown>;
      return rest;
    });
  }
  let snapshot = change.snapshot;
  if (snapshot !== null && typeof snapshot === 'object' && !Array.isArray(snapshot)) {
    const copy: Record<string, unknown> = { ...(snapshot as Record<string, unknown>) };
    for (const name of plan.camel) {
      if (!Object.hasOwn(copy, name) || isRedactionMarker(copy[name])) continue;
      copy[name] = REDACTED;
      changed = true;
    }
    snapshot = copy;
  }
  return changed ? { diff, snapshot } : null;
}
