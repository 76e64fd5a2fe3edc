/**
 * Between the wire and storage for one entity: camelCase JSON values checked and coerced against
 * the field descriptors, stored records turned into `{ data, meta }` views.
 */
import {
  defaultValue,
  isBaseField,
  isDefaultGenerator,
  snakeToCamel,
  toStorageModel,
  type EntityDefinitionDocument,
  type FieldDescriptor,
} from '../entity-document/index.ts';
import { ConfigurationError, type FieldIssue } from '../errors.ts';
import type { StoredRecord } from '../storage/types.ts';
import { MAX_DATE_TIME_LENGTH, MAX_EMAIL_LENGTH, MAX_INDEXED_STRING_LENGTH, MAX_JSON_DEPTH, MAX_URL_LENGTH } from '../limits.ts';
import type { EntityData, RecordView } from './types.ts';

/** One business field with both names. */
export interface BusinessField {
  name: string;
  camel: string;
  descriptor: FieldDescriptor;
  /** Sortable or filterable: stored in an index, so its strings are capped at {@link MAX_INDEXED_STRING_LENGTH}. */
  indexed: boolean;
}

/** Server-assigned properties a body must never carry (docs/decisions/B05.md). */
export const SERVER_ASSIGNED = new Set([
  'id',
  'version',
  'tenantId',
  'workspaceId',
  'cellId',
  'createdAt',
  'createdBy',
  'updatedAt',
  'updatedBy',
  'deletedAt',
  'deletedBy',
]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_LENGTH = 36;
// Anchored, no nested or adjacent quantifiers over the same characters: one pass, no backtracking.
// Only ever run on a string already capped at MAX_DATE_TIME_LENGTH.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})?)?$/;
const WHITESPACE = /\s/;

/** True for a canonical UUID string (length checked before the pattern). */
export const isUuid = (value: string): boolean => typeof value === 'string' && value.length === UUID_LENGTH && UUID.test(value);

const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * A date-time normalised to `toISOString()` (UTC, milliseconds), or null when it is not one.
 * Accepts an RFC 3339 date-time (`T`, `t` or a space between date and time; fraction up to 9
 * digits; `Z` or `±HH:MM`) or a plain `YYYY-MM-DD` (midnight UTC). A date-time without a zone is
 * read as UTC, never in the process time zone. Impossible calendar values (Feb 30, month 13,
 * hour 24, minute or second 60) are refused rather than rolled over. Used for bodies and list
 * filters alike, so both accept exactly the same values.
 */
export function normalizeDateTime(value: string): string | null {
  if (typeof value !== 'string' || value.length > MAX_DATE_TIME_LENGTH) return null;
  const match = RFC3339.exec(value);
  if (match === null) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const [hour, minute, second] = [Number(match[4] ?? 0), Number(match[5] ?? 0), Number(match[6] ?? 0)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  const millis = match[7] === undefined ? 0 : Number(match[7].slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  const zone = match[8];
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const [zoneHours, zoneMinutes] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
    if (zoneHours > 23 || zoneMinutes > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  }
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  // An offset can push the edge years out of 0000-9999, which toISOString writes in another form.
  const utcYear = date.getUTCFullYear();
  return Number.isNaN(date.getTime()) || utcYear < 0 || utcYear > 9999 ? null : date.toISOString();
}

/**
 * An e-mail address as the format check reads it: at most {@link MAX_EMAIL_LENGTH} characters,
 * one `@` with text on both sides, no whitespace, and a dot inside the domain. Hand-written so the
 * work is linear in the (already capped) length whatever the input.
 */
export function isEmail(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH || WHITESPACE.test(value)) return false;
  const at = value.indexOf('@');
  if (at < 1 || at !== value.lastIndexOf('@')) return false;
  const domain = value.slice(at + 1);
  return domain.length >= 3 && domain.lastIndexOf('.', domain.length - 2) >= 1;
}

/** An absolute URL of at most {@link MAX_URL_LENGTH} characters (the WHATWG parser is linear). */
export function isUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH) return false;
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

// NUL and unpaired surrogates cannot be stored as text or JSON by PostgreSQL; refuse them for every driver alike.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters refused
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_MESSAGE = 'Must not contain NUL characters or unpaired surrogates';
const NON_FINITE_MESSAGE = 'Numbers must be finite';
const TOO_DEEP_MESSAGE = `Must not be nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * What is wrong with a JSON value a client sent, or null: a string or key holding NUL or an
 * unpaired surrogate, a number that is not finite (`1e400` parses to Infinity and would be stored
 * as null), or nesting deeper than {@link MAX_JSON_DEPTH} (the top-level value counts as 1).
 * Iterative, so no input can overflow the stack, and linear in the size of the value.
 */
export function jsonValueProblem(value: unknown): string | null {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current === 'string') {
      if (UNSTORABLE.test(current)) return UNSTORABLE_MESSAGE;
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return NON_FINITE_MESSAGE;
    } else if (current !== null && typeof current === 'object') {
      if (depth > MAX_JSON_DEPTH) return TOO_DEEP_MESSAGE;
      if (Array.isArray(current)) {
        for (const item of current) stack.push([item, depth + 1]);
      } else {
        for (const [key, inner] of Object.entries(current)) {
          if (UNSTORABLE.test(key)) return UNSTORABLE_MESSAGE;
          stack.push([inner, depth + 1]);
        }
      }
    }
  }
  return null;
}

/** True when a string, or any key or string inside a JSON value, holds NUL or an unpaired surrogate. */
export function hasUnstorableText(value: unknown): boolean {
  return typeof value === 'string' ? UNSTORABLE.test(value) : jsonValueProblem(value) === UNSTORABLE_MESSAGE;
}

type Checked = { ok: true; value: unknown } | { ok: false; message: string };

/** Checks one value against a descriptor; `null` is handled by the caller. */
export function checkValue(field: FieldDescriptor, value: unknown): Checked {
  const problem = jsonValueProblem(value);
  if (problem !== null) return { ok: false, message: problem };
  switch (field.type) {
    case 'string': {
      if (typeof value !== 'string') return { ok: false, message: 'Expected a string' };
      if (field.enum !== undefined && !field.enum.includes(value)) return { ok: false, message: `Must be one of: ${field.enum.join(', ')}` };
      if (field.format === 'uuid' && !isUuid(value)) return { ok: false, message: 'Expected a UUID' };
      if (field.format === 'email' && !isEmail(value)) return { ok: false, message: `Expected an email address of at most ${MAX_EMAIL_LENGTH} characters` };
      if (field.format === 'url' && !isUrl(value)) return { ok: false, message: `Expected a URL of at most ${MAX_URL_LENGTH} characters` };
      if (field.format === 'date-time') {
        const normalized = normalizeDateTime(value);
        return normalized === null ? { ok: false, message: 'Expected an RFC 3339 date-time or a YYYY-MM-DD date' } : { ok: true, value: normalized };
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

/** Checks a non-null value of a business field: its descriptor, and the cap of an indexed string. */
export function checkBusinessValue(field: BusinessField, value: unknown): Checked {
  return field.indexed && typeof value === 'string' && value.length > MAX_INDEXED_STRING_LENGTH
    ? { ok: false, message: `Must be at most ${MAX_INDEXED_STRING_LENGTH} characters (the field is sortable or filterable)` }
    : checkValue(field.descriptor, value);
}

/**
 * A constant default must pass the same checks as a value a client sends (e-mail and URL formats,
 * the index cap), which the entity rules cannot run: refused when the resource is created.
 */
function checkDefault(field: BusinessField): void {
  const value = field.descriptor.default;
  if (value === undefined || value === null || isDefaultGenerator(value)) return;
  const checked = checkBusinessValue(field, value);
  if (!checked.ok) throw new ConfigurationError(`entity.fields.${field.name}.default`, checked.message);
}

/** The codec of one entity. */
export class EntityCodec {
  readonly fields: BusinessField[];
  private readonly byCamel: Map<string, BusinessField>;

  constructor(entity: EntityDefinitionDocument) {
    const indexed = new Set(toStorageModel(entity).indexedFields);
    this.fields = Object.entries(entity.fields)
      .filter(([name]) => !isBaseField(name))
      .map(([name, descriptor]) => ({ name, camel: snakeToCamel(name), descriptor, indexed: indexed.has(name) }));
    this.byCamel = new Map(this.fields.map((field) => [field.camel, field]));
    for (const field of this.fields) checkDefault(field);
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
        const checked = checkBusinessValue(field, value);
        if (checked.ok) values[field.name] = checked.value;
        else issues.push({ path: key, message: checked.message });
      }
    }
    if (!partial) {
      for (const field of this.fields) {
        if (Object.hasOwn(values, field.name)) continue;
        // A default fills an omitted field (a generator runs per create), then is stored like a sent value.
        if (field.descriptor.default !== undefined) values[field.name] = defaultValue(field.descriptor.default);
        else if (!field.descriptor.optional) {
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
    return {
      data: this.data(record),
      meta: { version: record.version, createdAt: record.createdAt, updatedAt: record.updatedAt, updatedBy: record.updatedBy },
    };
  }
}
