/**
 * Between the wire and storage for one entity: camelCase JSON values checked and coerced against
 * the field descriptors, stored records turned into `{ data, meta }` views.
 */
import { isBaseField, snakeToCamel, type EntityDefinitionDocument, type FieldDescriptor } from '../contract/entity-document/index.ts';
import type { FieldIssue } from '../errors.ts';
import type { StoredRecord } from '../storage/types.ts';
import type { EntityData, RecordView } from './types.ts';

/** One business field with both names. */
export interface BusinessField {
  name: string;
  camel: string;
  descriptor: FieldDescriptor;
}

/** Server-assigned properties a body must never carry (DECISIONS B5). */
export const SERVER_ASSIGNED = new Set(['id', 'version', 'tenantId', 'workspaceId', 'cellId', 'createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'deletedAt', 'deletedBy']);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** True for a canonical UUID string. */
export const isUuid = (value: string): boolean => UUID.test(value);

/** An ISO 8601 date or date-time normalised to `toISOString()` (UTC, milliseconds), or null. A missing zone means UTC. */
export function normalizeDateTime(value: string): string | null {
  const match = ISO_DATE_TIME.exec(value);
  if (match === null) return null;
  const withZone = match[4] === undefined ? `${value.slice(0, 10)}T00:00:00Z` : match[7] === undefined ? `${value.replace(' ', 'T')}Z` : value.replace(' ', 'T');
  const time = Date.parse(withZone);
  if (Number.isNaN(time)) return null;
  const date = new Date(time);
  // Date.parse rolls 2026-02-31 over to March; refuse dates that do not exist.
  if (match[4] === undefined && date.toISOString().slice(0, 10) !== value.slice(0, 10)) return null;
  return date.toISOString();
}

function isUrl(value: string): boolean {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

// NUL and unpaired surrogates cannot be stored as text or JSON by PostgreSQL; refuse them for every driver alike.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when a string, or any key or string inside a JSON value, holds NUL or an unpaired surrogate. */
export function hasUnstorableText(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (Array.isArray(value)) return value.some((item) => hasUnstorableText(item, depth + 1));
  return Object.entries(value).some(([key, inner]) => UNSTORABLE.test(key) || hasUnstorableText(inner, depth + 1));
}

const UNSTORABLE_MESSAGE = 'Must not contain NUL characters or unpaired surrogates';

type Checked = { ok: true; value: unknown } | { ok: false; message: string };

/** Checks one value against a descriptor; `null` is handled by the caller. */
export function checkValue(field: FieldDescriptor, value: unknown): Checked {
  if (hasUnstorableText(value)) return { ok: false, message: UNSTORABLE_MESSAGE };
  switch (field.type) {
    case 'string': {
      if (typeof value !== 'string') return { ok: false, message: 'Expected a string' };
      if (field.enum !== undefined && !field.enum.includes(value)) return { ok: false, message: `Must be one of: ${field.enum.join(', ')}` };
      if (field.format === 'uuid' && !isUuid(value)) return { ok: false, message: 'Expected a UUID' };
      if (field.format === 'email' && !EMAIL.test(value)) return { ok: false, message: 'Expected an email address' };
      if (field.format === 'url' && !isUrl(value)) return { ok: false, message: 'Expected a URL' };
      if (field.format === 'date-time') {
        const normalized = normalizeDateTime(value);
        return normalized === null ? { ok: false, message: 'Expected an ISO 8601 date-time' } : { ok: true, value: normalized };
      }
      return { ok: true, value };
    }
    case 'integer':
      return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false, message: 'Expected an integer' };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : { ok: false, message: 'Expected a number' };
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, message: 'Expected a boolean' };
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? { ok: true, value } : { ok: false, message: 'Expected an object' };
    case 'array':
      return Array.isArray(value) ? { ok: true, value } : { ok: false, message: 'Expected an array' };
  }
}

/** The codec of one entity. */
export class EntityCodec {
  readonly fields: BusinessField[];
  private readonly byCamel: Map<string, BusinessField>;

  constructor(entity: EntityDefinitionDocument) {
    this.fields = Object.entries(entity.fields)
      .filter(([name]) => !isBaseField(name))
      .map(([name, descriptor]) => ({ name, camel: snakeToCamel(name), descriptor }));
    this.byCamel = new Map(this.fields.map((field) => [field.camel, field]));
  }

  /** The business field of a camelCase name. */
  field(camel: string): BusinessField | undefined {
    return this.byCamel.get(camel);
  }

  /**
   * Checks camelCase input. `partial` (merge PATCH) checks only the members present; otherwise
   * every non-optional field is required. Returns snake_case values, or the issues.
   */
  decode(input: Record<string, unknown>, partial: boolean): { values: Record<string, unknown>; issues: FieldIssue[] } {
    const issues: FieldIssue[] = [];
    const values: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      const field = this.byCamel.get(key);
      if (SERVER_ASSIGNED.has(key)) issues.push({ path: key, message: `${key} is server-assigned and cannot be set` });
      else if (field === undefined) issues.push({ path: key, message: 'Unknown field' });
      else if (value === null || value === undefined) {
        if (field.descriptor.nullable || field.descriptor.optional) values[field.name] = null;
        else issues.push({ path: key, message: value === null ? 'Must not be null' : 'Required' });
      } else {
        const checked = checkValue(field.descriptor, value);
        if (checked.ok) values[field.name] = checked.value;
        else issues.push({ path: key, message: checked.message });
      }
    }
    if (!partial) {
      for (const field of this.fields) {
        if (Object.hasOwn(values, field.name)) continue;
        if (!field.descriptor.optional) {
          if (!issues.some((issue) => issue.path === field.camel)) issues.push({ path: field.camel, message: 'Required' });
        } else values[field.name] = null;
      }
    }
    return { values, issues };
  }

  /** Business fields of a stored record in camelCase (absent → null). */
  business(record: StoredRecord): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const field of this.fields) out[field.camel] = record.fields[field.name] ?? null;
    return out;
  }

  /** What the audit diff compares: business fields plus the soft-delete markers. */
  auditState(record: StoredRecord): Record<string, unknown> {
    return { ...this.business(record), deletedAt: record.deletedAt, deletedBy: record.deletedBy };
  }

  /** The wire view of a record. */
  data(record: StoredRecord): EntityData {
    return {
      id: record.id,
      tenantId: record.tenantId,
      workspaceId: record.workspaceId,
      cellId: record.cellId,
      ...this.business(record),
      version: record.version,
      createdAt: record.createdAt,
      createdBy: record.createdBy,
      updatedAt: record.updatedAt,
      updatedBy: record.updatedBy,
      deletedAt: record.deletedAt,
      deletedBy: record.deletedBy,
    };
  }

  /** `{ data, meta }` of a record. */
  view(record: StoredRecord): RecordView {
    return { data: this.data(record), meta: { version: record.version, createdAt: record.createdAt, updatedAt: record.updatedAt, updatedBy: record.updatedBy } };
  }
}
