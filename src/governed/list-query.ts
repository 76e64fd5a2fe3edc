/**
 * List parameters (already parsed from the query string) checked against the entity's data block
 * and turned into a storage {@link ListQuery} (DECISIONS B12). Bad parameters → 400 naming the parameter.
 */
import { BASE_FIELDS, camelToSnake, snakeToCamel, type EntityDefinitionDocument, type FieldDescriptor } from '../contract/entity-document/index.ts';
import { validationError, type FieldIssue } from '../errors.ts';
import type { FilterOperator, ListFilter, ListQuery, RecordScope } from '../storage/types.ts';
import { checkValue, hasUnstorableText, isUuid, normalizeDateTime } from './codec.ts';
import { MAX_SEARCH_TERM_LENGTH } from '../limits.ts';
import type { ListParams } from './types.ts';

/** Maximum page size; larger values are clamped. */
export const MAX_PAGE_SIZE = 100;
/** Default page size. */
export const DEFAULT_PAGE_SIZE = 20;

/** Coerces a query-string scalar to the field's type; null when it does not fit. */
function coerce(field: FieldDescriptor, raw: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  let value = raw;
  if (typeof raw === 'string') {
    if (field.type === 'integer' || field.type === 'number') value = raw.trim() === '' ? Number.NaN : Number(raw);
    else if (field.type === 'boolean') value = raw === 'true' ? true : raw === 'false' ? false : raw;
  }
  if (field.type === 'string' && field.format === 'date-time' && typeof value === 'string') {
    const normalized = normalizeDateTime(value);
    return normalized === null ? { ok: false, message: 'Expected an RFC 3339 date-time or a YYYY-MM-DD date' } : { ok: true, value: normalized };
  }
  if (field.type === 'string' && field.format === 'uuid' && typeof value === 'string' && !isUuid(value)) return { ok: false, message: 'Expected a UUID' };
  // contains/startsWith on formatted strings still need text; enum membership is not required for a search fragment.
  return checkValue({ ...field, format: field.format === 'email' || field.format === 'url' ? undefined : field.format }, value);
}

/** A search term or `contains`/`startsWith` value: storable text of at most {@link MAX_SEARCH_TERM_LENGTH} characters. */
function searchText(value: unknown): { ok: true; value: string } | { ok: false; message: string } {
  if (typeof value !== 'string' || hasUnstorableText(value)) return { ok: false, message: 'Expected text' };
  if (value.length > MAX_SEARCH_TERM_LENGTH) return { ok: false, message: `Must be at most ${MAX_SEARCH_TERM_LENGTH} characters` };
  return { ok: true, value };
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value]);

/** Builds the storage query of a list request. */
export function buildListQuery(entity: EntityDefinitionDocument, scope: RecordScope, params: ListParams): { query: ListQuery; page: number; pageSize: number } {
  const issues: FieldIssue[] = [];
  const page = params.page ?? 1;
  if (!Number.isSafeInteger(page) || page < 1) issues.push({ path: 'page', message: 'Must be an integer of at least 1' });
  const requestedSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(requestedSize) || requestedSize < 1) issues.push({ path: 'pageSize', message: 'Must be an integer of at least 1' });
  const pageSize = Math.min(requestedSize, MAX_PAGE_SIZE);

  const data = entity.data;
  const sortable = new Set([...(data?.sorting?.allowedFields ?? []), 'created_at', 'updated_at']);
  const fallback = data?.sorting?.default ?? { field: 'created_at', direction: 'asc' as const };
  let sortField = fallback.field;
  let direction: 'asc' | 'desc' = params.sortBy === undefined ? (params.sortDir ?? fallback.direction) : (params.sortDir ?? 'asc');
  if (params.sortDir !== undefined && params.sortDir !== 'asc' && params.sortDir !== 'desc') {
    issues.push({ path: 'sortDir', message: 'Must be asc or desc' });
    direction = 'asc';
  }
  if (params.sortBy !== undefined) {
    const snake = camelToSnake(params.sortBy);
    if (!sortable.has(snake) || snakeToCamel(snake) !== params.sortBy) {
      issues.push({ path: 'sortBy', message: `Must be one of: ${[...sortable].map(snakeToCamel).join(', ')}` });
    } else sortField = snake;
  }

  const filterable = new Set(data?.filtering?.allowedFields ?? []);
  const filters: ListFilter[] = [];
  for (const filter of params.filters ?? []) {
    const parameter = filter.operator === 'equals' ? filter.field : `${filter.field}[${filter.operator}]`;
    const snake = camelToSnake(filter.field);
    if (!filterable.has(snake) || snakeToCamel(snake) !== filter.field) {
      issues.push({ path: parameter, message: filterable.size === 0 ? 'This resource has no filterable fields' : `Unknown filter; filterable fields: ${[...filterable].map(snakeToCamel).join(', ')}` });
      continue;
    }
    const allowed: readonly FilterOperator[] = data?.filtering?.operators[snake] ?? ['equals'];
    if (!allowed.includes(filter.operator)) {
      issues.push({ path: parameter, message: `Operator not allowed on ${filter.field}; allowed: ${allowed.join(', ')}` });
      continue;
    }
    const descriptor = entity.fields[snake] ?? BASE_FIELDS[snake]!;
    const raw = filter.operator === 'in' || filter.operator === 'between' ? asList(filter.value) : [filter.value];
    if (filter.operator === 'between' && raw.length !== 2) {
      issues.push({ path: parameter, message: 'Expected two values: low,high' });
      continue;
    }
    if (raw.length === 0 || raw.length > 100) {
      issues.push({ path: parameter, message: 'Expected 1 to 100 values' });
      continue;
    }
    const values: unknown[] = [];
    for (const item of raw) {
      const text = filter.operator === 'contains' || filter.operator === 'startsWith';
      const checked = text ? searchText(item) : coerce(descriptor, item);
      if (checked.ok) values.push(checked.value);
      else issues.push({ path: parameter, message: checked.message });
    }
    if (values.length !== raw.length) continue;
    filters.push({ field: snake, operator: filter.operator, value: filter.operator === 'in' || filter.operator === 'between' ? values : values[0] });
  }

  let search: ListQuery['search'];
  if (params.q !== undefined && params.q !== '') {
    const fields = data?.searching?.fields ?? [];
    if (fields.length === 0) issues.push({ path: 'q', message: 'This resource does not support search' });
    else {
      const term = searchText(params.q);
      if (term.ok) search = { fields, term: term.value };
      else issues.push({ path: 'q', message: term.message });
    }
  }

  if (issues.length > 0) throw validationError('Invalid list parameters', issues);
  return {
    query: { scope, filters, ...(search === undefined ? {} : { search }), sort: { field: sortField, direction }, offset: (page - 1) * pageSize, limit: pageSize, includeDeleted: params.includeDeleted === true },
    page,
    pageSize,
  };
}
