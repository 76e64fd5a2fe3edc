/**
 * Parsing the query string of a collection GET (DECISIONS.md B12) against the entity's data
 * block: paging, sorting, filters with their declared operators, `q` search, `includeDeleted`.
 * Names on the wire are camelCase; the result uses the snake_case names of the storage seam.
 * Anything not allowed is a 400 `VALIDATION_ERROR` naming the parameter.
 */
import { validationError, type FieldIssue } from '../../errors.ts';
import type { FilterOperator } from '../../storage/types.ts';
import type { ListFilterParam, ListParams } from '../types.ts';
import { normalizeDateTime } from '../codec.ts';
import { snakeToCamel as camelCase } from '../../contract/entity-document/naming.ts';

/** The parts of an entity document a list query depends on (structural, SEED.md snake_case form). */
export interface ListableEntity {
  fields: Record<string, { type: string; format?: string | undefined; enum?: readonly string[] | undefined }>;
  data?:
    | {
        filtering?: { allowedFields?: readonly string[]; operators?: Record<string, readonly string[]> } | undefined;
        searching?: { fields?: readonly string[] } | undefined;
        sorting?:
          | { allowedFields?: readonly string[]; default?: { field: string; direction: 'asc' | 'desc' } | undefined }
          | undefined;
      }
    | undefined;
}

/** Default and maximum page size (SEED.md "Limits"). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const RESERVED = new Set(['page', 'pageSize', 'sortBy', 'sortDir', 'includeDeleted', 'q']);

/** A compiled parser for one entity: allow-lists resolved once, not per request. */
export type ListQueryParser = (params: URLSearchParams) => ListParams;

class QueryProblems {
  readonly issues: FieldIssue[] = [];
  add(path: string, message: string) {
    this.issues.push({ path, message });
  }
}

function coerce(
  raw: string,
  field: ListableEntity['fields'][string],
  operator: FilterOperator,
): { ok: true; value: unknown } | { ok: false; message: string } {
  if (operator === 'contains' || operator === 'startsWith') return { ok: true, value: raw };
  switch (field.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) return { ok: false, message: 'must be an integer' };
      return { ok: true, value: Number(raw) };
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) return { ok: false, message: 'must be a number' };
      return { ok: true, value: n };
    }
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') return { ok: false, message: 'must be true or false' };
      return { ok: true, value: raw === 'true' };
    case 'string': {
      if (field.format === 'date-time') {
        // The same reading as bodies: RFC 3339 or YYYY-MM-DD, UTC without a zone, no impossible dates.
        const normalized = normalizeDateTime(raw);
        return normalized === null ? { ok: false, message: 'must be an RFC 3339 date-time or a YYYY-MM-DD date' } : { ok: true, value: normalized };
      }
      if (field.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw)) {
        return { ok: false, message: 'must be a UUID' };
      }
      if (field.enum && !field.enum.includes(raw)) return { ok: false, message: `must be one of ${field.enum.join(', ')}` };
      return { ok: true, value: raw };
    }
    default:
      return { ok: false, message: 'cannot be filtered' };
  }
}

function positiveInt(raw: string | null, fallback: number, name: string, problems: QueryProblems): number {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < 1) {
    problems.add(name, `${name} must be an integer of at least 1`);
    return fallback;
  }
  return Number(raw);
}

/**
 * Compiles the parser of one entity's collection query.
 *
 * @example
 * const parse = createListQueryParser(invoiceDocument);
 * parse(new URLSearchParams('status[in]=PAID,SENT&sortBy=amount&sortDir=desc'));
 */
export function createListQueryParser(entity: ListableEntity): ListQueryParser {
  const filtering = entity.data?.filtering;
  const operatorsByCamel = new Map<string, { snake: string; operators: Set<string> }>();
  for (const snake of filtering?.allowedFields ?? []) {
    operatorsByCamel.set(camelCase(snake), { snake, operators: new Set(filtering?.operators?.[snake] ?? ['equals']) });
  }
  const sortable = new Set(['createdAt', 'updatedAt', ...(entity.data?.sorting?.allowedFields ?? []).map(camelCase)]);
  const searchable = (entity.data?.searching?.fields ?? []).length > 0;

  return (params) => {
    const problems = new QueryProblems();
    for (const name of new Set(params.keys())) {
      if (params.getAll(name).length > 1) problems.add(name, `${name} is given more than once`);
    }
    const page = positiveInt(params.get('page'), 1, 'page', problems);
    const pageSize = Math.min(MAX_PAGE_SIZE, positiveInt(params.get('pageSize'), DEFAULT_PAGE_SIZE, 'pageSize', problems));

    const sortBy = params.get('sortBy');
    if (sortBy !== null && !sortable.has(sortBy)) problems.add('sortBy', `sortBy must be one of ${[...sortable].join(', ')}`);
    const sortDir = params.get('sortDir');
    if (sortDir !== null && sortDir !== 'asc' && sortDir !== 'desc') problems.add('sortDir', 'sortDir must be asc or desc');

    const includeDeletedRaw = params.get('includeDeleted');
    if (includeDeletedRaw !== null && includeDeletedRaw !== 'true' && includeDeletedRaw !== 'false') {
      problems.add('includeDeleted', 'includeDeleted must be true or false');
    }

    const q = params.get('q')?.trim();
    if (q !== undefined && !searchable) problems.add('q', 'this resource does not support search');

    const filters: ListFilterParam[] = [];
    for (const name of new Set(params.keys())) {
      if (RESERVED.has(name)) continue;
      const match = /^([A-Za-z][A-Za-z0-9]*)(?:\[([A-Za-z]+)\])?$/.exec(name);
      const allowed = match ? operatorsByCamel.get(match[1]!) : undefined;
      if (!match || !allowed) {
        problems.add(name, `${name} is not a known parameter or filterable field`);
        continue;
      }
      const operator = (match[2] ?? 'equals') as FilterOperator;
      if (!allowed.operators.has(operator)) {
        problems.add(name, `operator ${operator} is not allowed on ${match[1]}; allowed: ${[...allowed.operators].join(', ')}`);
        continue;
      }
      const field = entity.fields[allowed.snake];
      const raw = params.get(name)!;
      if (!field) {
        problems.add(name, `${match[1]} cannot be filtered`);
        continue;
      }
      const parts = operator === 'in' || operator === 'between' ? raw.split(',') : [raw];
      if (operator === 'between' && parts.length !== 2) {
        problems.add(name, `${name} needs two comma-separated values`);
        continue;
      }
      if (operator === 'in' && parts.some((part) => part === '')) {
        problems.add(name, `${name} needs a non-empty comma-separated list`);
        continue;
      }
      const values: unknown[] = [];
      for (const part of parts) {
        const coerced = coerce(part, field, operator);
        if (!coerced.ok) problems.add(name, `${name} ${coerced.message}`);
        else values.push(coerced.value);
      }
      if (values.length !== parts.length) continue;
      filters.push({ field: match[1]!, operator, value: operator === 'in' || operator === 'between' ? values : values[0] });
    }

    if (problems.issues.length > 0) {
      const names = [...new Set(problems.issues.map((issue) => issue.path))].join(', ');
      throw validationError(`Invalid query parameter: ${names}.`, problems.issues);
    }
    const result: ListParams = { page, pageSize, filters, includeDeleted: includeDeletedRaw === 'true' };
    if (sortBy !== null) result.sortBy = sortBy;
    if (sortDir === 'asc' || sortDir === 'desc') result.sortDir = sortDir;
    if (q) result.q = q;
    return result;
  };
}
