/**
 * The one parser of list parameters (docs/decisions/B12.md), compiled per entity: paging, sorting, filters
 * with their declared operators, `q` search, `includeDeleted`. It takes the programmatic form
 * (numbers, typed values) and the query-string form (text) alike, so the HTTP edge and the service
 * check a list request with the same schema. Bad parameters → 400 naming each parameter.
 */
import { z } from 'zod';
import { BASE_FIELDS, camelToSnake, filteringOf, snakeToCamel, type EntityDefinitionDocument, type FieldDescriptor } from '../entity-document/index.ts';
import { DEFAULT_PAGE_SIZE, MAX_DATE_TIME_LENGTH, MAX_FILTER_VALUES, MAX_PAGE_SIZE, MAX_SEARCH_TERM_LENGTH } from '../limits.ts';
import type { FilterOperator, ListQuery, RecordScope } from '../storage/types.ts';
import { checkValue, hasUnstorableText, isUuid, normalizeDateTime } from './codec.ts';
import { parseInput, validationErrorOf } from './service-schemas.ts';
import { AsOfInputSchema } from './time-travel/schemas.ts';
import type { ListFilterParam, ListParams } from './types.ts';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE };

/** The parts of an entity document a list query depends on (structural, docs/contract-conventions.md#standalone-entity-definition-document snake_case form). */
export interface ListableEntity {
  fields: Record<string, { type: string; format?: string | undefined; enum?: readonly string[] | undefined; references?: unknown }>;
  data?:
    | {
        filtering?: { allowedFields?: readonly string[]; operators?: Record<string, readonly string[]> } | undefined;
        searching?: { fields?: readonly string[] } | undefined;
        sorting?: { allowedFields?: readonly string[]; default?: { field: string; direction: 'asc' | 'desc' } | undefined } | undefined;
      }
    | undefined;
}

/** List parameters after checking: defaults applied, filter values coerced to their field types. */
export interface ParsedListParams extends ListParams {
  page: number;
  pageSize: number;
  filters: ListFilterParam[];
  includeDeleted: boolean;
  /** The instant of a read as of an instant, normalised to UTC. */
  asOf?: string;
}

/** A compiled parser of one entity's collection query string. */
export type ListQueryParser = (params: URLSearchParams) => ParsedListParams;

/** Query parameters that are not filters. */
const RESERVED = new Set(['page', 'pageSize', 'sortBy', 'sortDir', 'includeDeleted', 'q', 'asOf']);
const FILTER_NAME = /^([A-Za-z][A-Za-z0-9]{0,99})(?:\[([A-Za-z]{1,20})\])?$/;

/** How a list total is counted (PostgREST's `Prefer: count=` values). */
export const CountMethodSchema = z.enum(['exact', 'planned', 'estimated'], 'Must be exact, planned or estimated');

/**
 * The `count` preference of a `Prefer` header (RFC 7240), e.g. `Prefer: count=estimated`;
 * undefined when absent. Other preferences, and values we do not support, are ignored as the RFC asks.
 */
export const PreferCountSchema = z
  .string()
  .max(1000)
  .transform((header) => {
    for (const token of header.split(/[,;]/)) {
      const [name, value] = token.split('=').map((part) => part.trim().toLowerCase());
      if (name === 'count') return CountMethodSchema.safeParse(value?.replace(/^"|"$/g, '')).data;
    }
    return undefined;
  })
  .describe('`count=exact|planned|estimated`: how `meta.total` is counted; answered with `Preference-Applied`.');

/** A positive integer, as a number or as query text. */
const positiveInteger = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\d{1,15}$/, 'Must be an integer of at least 1')
      .transform(Number),
  ])
  .pipe(z.number().int('Must be an integer of at least 1').min(1, 'Must be an integer of at least 1'));

type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

/** Coerces one filter value (query text or a typed value) to the field's type. */
function coerce(field: FieldDescriptor, raw: unknown, operator: FilterOperator): Coerced {
  if (operator === 'contains' || operator === 'startsWith') {
    // Substring matching costs the term's length times the text's per row: the term is capped.
    if (typeof raw !== 'string' || raw === '' || hasUnstorableText(raw)) return { ok: false, message: 'Expected text' };
    return raw.length > MAX_SEARCH_TERM_LENGTH ? { ok: false, message: `Must be at most ${MAX_SEARCH_TERM_LENGTH} characters` } : { ok: true, value: raw };
  }
  let value = raw;
  if (typeof raw === 'string') {
    if (field.type === 'integer') value = /^-?\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
    else if (field.type === 'number') value = raw.length <= 64 && raw.trim() !== '' ? Number(raw) : Number.NaN;
    else if (field.type === 'boolean') value = raw === 'true' ? true : raw === 'false' ? false : raw;
  }
  if (field.type === 'string' && field.format === 'date-time' && typeof value === 'string') {
    const normalized = value.length <= MAX_DATE_TIME_LENGTH ? normalizeDateTime(value) : null;
    return normalized === null ? { ok: false, message: 'Expected an RFC 3339 date or date-time' } : { ok: true, value: normalized };
  }
  if (field.type === 'string' && field.format === 'uuid' && typeof value === 'string' && !isUuid(value)) return { ok: false, message: 'Expected a UUID' };
  // Equality on e-mail or URL fields compares text; the format is checked when values are written.
  return checkValue({ ...field, format: field.format === 'email' || field.format === 'url' ? undefined : field.format }, value);
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value]);

const SCHEMAS = new WeakMap<ListableEntity, ReturnType<typeof buildListParamsSchema>>();

/**
 * The schema of one entity's list parameters (the object form of {@link ListParams}), built once
 * per entity: the service and the router of a resource hold the very same schema.
 */
export function listParamsSchema(entity: ListableEntity): ReturnType<typeof buildListParamsSchema> {
  // Only a checked (frozen) entity can be cached: a plain object could change after the call.
  if (!Object.isFrozen(entity)) return buildListParamsSchema(entity);
  let schema = SCHEMAS.get(entity);
  if (schema === undefined) SCHEMAS.set(entity, (schema = buildListParamsSchema(entity)));
  return schema;
}

function buildListParamsSchema(entity: ListableEntity) {
  const data = entity.data;
  const filtering = filteringOf(entity);
  const filterable = new Map(filtering.allowedFields.map((snake) => [snakeToCamel(snake), snake]));
  const sortable = ['createdAt', 'updatedAt', ...(data?.sorting?.allowedFields ?? []).map(snakeToCamel)];
  const searchable = (data?.searching?.fields ?? []).length > 0;
  const filterIssue = (filter: ListFilterParam): string | { value: unknown } => {
    const snake = filterable.get(filter.field);
    if (snake === undefined)
      return filterable.size === 0 ? 'This resource has no filterable fields' : `Unknown filter; filterable fields: ${[...filterable.keys()].join(', ')}`;
    const allowed = filtering.operators[snake] ?? ['equals'];
    if (!allowed.includes(filter.operator)) return `Operator ${filter.operator} is not allowed on ${filter.field}; allowed: ${allowed.join(', ')}`;
    const descriptor = (entity.fields[snake] ?? BASE_FIELDS[snake]) as FieldDescriptor | undefined;
    if (descriptor === undefined) return `${filter.field} cannot be filtered`;
    const many = filter.operator === 'in' || filter.operator === 'between';
    const raw = many ? asList(filter.value) : [filter.value];
    if (filter.operator === 'between' && raw.length !== 2) return 'Expected two values: low,high';
    if (raw.length === 0 || raw.length > MAX_FILTER_VALUES) return `Expected 1 to ${MAX_FILTER_VALUES} values`;
    const values: unknown[] = [];
    for (const item of raw) {
      const checked = coerce(descriptor, item, filter.operator);
      if (!checked.ok) return checked.message;
      values.push(checked.value);
    }
    return { value: many ? values : values[0] };
  };
  const Filter = z.object({ field: z.string().max(100), operator: z.string().max(20) as z.ZodType<FilterOperator>, value: z.unknown() });
  return z
    .strictObject({
      page: positiveInteger.default(1).describe('1-based page number. @default 1'),
      pageSize: positiveInteger
        .transform((size) => Math.min(size, MAX_PAGE_SIZE))
        .default(DEFAULT_PAGE_SIZE)
        .describe(`Records per page, clamped to ${MAX_PAGE_SIZE}. @default ${DEFAULT_PAGE_SIZE}`),
      sortBy: z
        .string()
        .refine((name) => sortable.includes(name), `Must be one of: ${sortable.join(', ')}`)
        .optional()
        .describe(`Sort field: ${sortable.join(', ')}.`),
      sortDir: z.enum(['asc', 'desc'], 'Must be asc or desc').optional(),
      filters: z
        .array(Filter)
        .max(filterable.size * 8 + 1)
        .default([]),
      q: z
        .string()
        .max(MAX_SEARCH_TERM_LENGTH, `Must be at most ${MAX_SEARCH_TERM_LENGTH} characters`)
        .refine((term) => !hasUnstorableText(term), 'Expected text')
        .refine((term) => term === '' || searchable, 'This resource does not support search')
        .optional()
        .describe('Case-insensitive search over the searchable fields.'),
      includeDeleted: z
        .union([z.boolean(), z.enum(['true', 'false'], 'Must be true or false').transform((text) => text === 'true')])
        .default(false)
        .describe('Also list soft-deleted records (admin access and the read permission).'),
      count: CountMethodSchema.optional(),
      asOf: AsOfInputSchema.optional(),
    })
    .transform((params, ctx): ParsedListParams => {
      const filters: ListFilterParam[] = [];
      for (const filter of params.filters) {
        const checked = filterIssue(filter);
        const name = filter.operator === 'equals' ? filter.field : `${filter.field}[${filter.operator}]`;
        if (typeof checked === 'string') ctx.addIssue({ code: 'custom', path: [name], message: checked });
        else filters.push({ field: filter.field, operator: filter.operator, value: checked.value });
      }
      const { q, sortBy, sortDir, ...rest } = params;
      return {
        ...rest,
        filters,
        ...(q === undefined || q === '' ? {} : { q }),
        ...(sortBy === undefined ? {} : { sortBy }),
        ...(sortDir === undefined ? {} : { sortDir }),
      };
    });
}

/**
 * The programmatic form of a query string: reserved names as text, every other name a filter
 * `field` or `field[operator]`. A name given twice, or not shaped like a filter, is refused.
 */
export function listParamsOfQuery(params: URLSearchParams): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const filters: ListFilterParam[] = [];
  const issues: Array<{ path: string; message: string }> = [];
  for (const name of new Set(params.keys())) {
    if (params.getAll(name).length > 1) {
      issues.push({ path: name, message: `${name} is given more than once` });
      continue;
    }
    const value = params.get(name)!;
    if (RESERVED.has(name)) {
      result[name] = name === 'q' ? value.trim() : value;
      continue;
    }
    const match = FILTER_NAME.exec(name);
    if (match === null) issues.push({ path: name, message: `${name} is not a known parameter or filterable field` });
    else filters.push({ field: match[1]!, operator: (match[2] ?? 'equals') as FilterOperator, value });
  }
  if (issues.length > 0) throw validationErrorOf('query parameter', issues);
  result.filters = filters;
  return result;
}

/**
 * Compiles the parser of one entity's collection query (the query-string face of
 * `listParamsSchema`).
 *
 * @example
 * const parse = createListQueryParser(invoiceDocument);
 * parse(new URLSearchParams('status[in]=PAID,SENT&sortBy=amount&sortDir=desc'));
 */
export function createListQueryParser(entity: ListableEntity): ListQueryParser {
  const schema = listParamsSchema(entity);
  return (params) => parseInput(schema, listParamsOfQuery(params), 'query parameter');
}

/** The storage query of checked list parameters (names to snake_case, page to offset). */
export function toListQuery(entity: EntityDefinitionDocument, scope: RecordScope, params: ParsedListParams): ListQuery {
  const fallback = entity.data?.sorting?.default ?? { field: 'created_at', direction: 'asc' as const };
  const sort =
    params.sortBy === undefined
      ? { field: fallback.field, direction: params.sortDir ?? fallback.direction }
      : { field: camelToSnake(params.sortBy), direction: params.sortDir ?? 'asc' };
  const searchFields = entity.data?.searching?.fields ?? [];
  return {
    scope,
    filters: params.filters.map((filter) => ({ field: camelToSnake(filter.field), operator: filter.operator, value: filter.value })),
    ...(params.q === undefined ? {} : { search: { fields: searchFields, term: params.q } }),
    sort,
    offset: (params.page - 1) * params.pageSize,
    limit: params.pageSize,
    includeDeleted: params.includeDeleted,
    ...(params.count === undefined ? {} : { count: params.count }),
  };
}
