/**
 * Request headers and parameters of governed routes that are not the body: `If-Match`,
 * `?expectedVersion=`, `Idempotency-Key`, history paging, and the deprecation headers of answers.
 */
import { ConfigurationError, validationError } from '../../errors.ts';
import type { HistoryParams } from '../types.ts';

const VERSION = /^[1-9]\d{0,14}$/;

/** The version of an `If-Match: "<version>"` header (quotes required, one tag), or undefined when absent. */
export function ifMatchOf(request: Request): number | undefined {
  const raw = request.headers.get('if-match');
  if (raw === null) return undefined;
  const match = /^\s*"(\d+)"\s*$/.exec(raw);
  if (!match || !VERSION.test(match[1]!)) {
    throw validationError('If-Match must be one entity tag "<version>", e.g. "3".', [{ path: 'If-Match', message: 'must be "<version>" with a positive integer version' }]);
  }
  return Number(match[1]);
}

/** A positive integer version from a query parameter, or undefined when absent. */
export function versionParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!VERSION.test(raw) || params.getAll(name).length > 1) {
    throw validationError(`Invalid query parameter: ${name}.`, [{ path: name, message: `${name} must be a positive integer` }]);
  }
  return Number(raw);
}

/** Refuses query parameters other than `allowed`, naming them. */
export function onlyParams(params: URLSearchParams, allowed: readonly string[]): void {
  const unknown = [...new Set(params.keys())].filter((name) => !allowed.includes(name));
  const repeated = [...new Set(params.keys())].filter((name) => params.getAll(name).length > 1);
  const issues = [
    ...unknown.map((name) => ({ path: name, message: `${name} is not a parameter of this endpoint${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ''}` })),
    ...repeated.filter((name) => !unknown.includes(name)).map((name) => ({ path: name, message: `${name} is given more than once` })),
  ];
  if (issues.length > 0) throw validationError(`Invalid query parameter: ${issues.map((i) => i.path).join(', ')}.`, issues);
}

/** History paging `?limit&cursor` (1..100, default 20). */
export function historyParamsOf(params: URLSearchParams, extra: readonly string[] = []): HistoryParams {
  onlyParams(params, ['limit', 'cursor', ...extra]);
  const result: HistoryParams = {};
  const limit = params.get('limit');
  if (limit !== null) {
    if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100) {
      throw validationError('Invalid query parameter: limit.', [{ path: 'limit', message: 'limit must be an integer from 1 to 100' }]);
    }
    result.limit = Number(limit);
  }
  const cursor = params.get('cursor');
  if (cursor !== null) {
    if (cursor === '' || cursor.length > 512) throw validationError('Invalid query parameter: cursor.', [{ path: 'cursor', message: 'cursor must be a nextCursor value' }]);
    result.cursor = cursor;
  }
  return result;
}

/** The `Idempotency-Key` header: 1–255 visible ASCII characters, or undefined when absent. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const key = request.headers.get('idempotency-key');
  if (key === null) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw validationError('Idempotency-Key must be 1 to 255 visible ASCII characters.', [{ path: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }]);
  }
  return key;
}

/**
 * Marks a resource deprecated (DECISIONS B18): answers carry `Deprecation: true`, `Sunset` when a
 * date is given, and a `Link` to the migration notes when given.
 *
 * @example
 * deprecation: { sunset: '2027-06-30', link: 'https://docs.example.com/migrate-to-v2' }
 */
export interface DeprecationOptions {
  /** When the endpoint goes away: a Date or a date text `Date` parses. */
  sunset?: Date | string;
  /** URL documenting the replacement, sent as `Link: <url>; rel="deprecation"`. */
  link?: string;
}

/** The headers of a deprecation option (empty when not deprecated); validates the option. */
export function deprecationHeaders(option: DeprecationOptions | boolean | undefined, path = 'deprecation'): Record<string, string> {
  if (!option) return {};
  const headers: Record<string, string> = { deprecation: 'true' };
  if (option === true) return headers;
  if (option.sunset !== undefined) {
    const date = option.sunset instanceof Date ? option.sunset : new Date(option.sunset);
    if (Number.isNaN(date.getTime())) throw new ConfigurationError(`${path}.sunset`, 'is not a valid date.');
    headers.sunset = date.toUTCString();
  }
  if (option.link !== undefined) {
    try {
      headers.link = `<${new URL(option.link).href}>; rel="deprecation"`;
    } catch {
      throw new ConfigurationError(`${path}.link`, 'is not a valid URL.');
    }
  }
  return headers;
}
