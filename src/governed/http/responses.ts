/** Governed answers: single records with `ETag`, 201 with `Location`, 405 with `Allow`. */
import { CellgateError } from '../../errors.ts';
import { jsonResponse } from '../../http/responses.ts';
import type { RecordView } from '../types.ts';

/** A single-resource answer with `ETag: "<version>"`. */
export function recordResponse(view: RecordView, status = 200, headers: Record<string, string> = {}): Response {
  return jsonResponse(view, status, { ...headers, etag: `"${view.meta.version}"` });
}

/**
 * 405 `METHOD_NOT_ALLOWED` listing the methods of the path in `Allow`, with `HEAD` beside `GET`:
 * every governed path that answers GET answers HEAD too (RFC 9110 §9.3.2).
 */
export function methodNotAllowed(method: string, methods: readonly string[]): CellgateError {
  const allow = methods.flatMap((name) => (name === 'GET' ? ['GET', 'HEAD'] : [name])).join(', ');
  return new CellgateError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed here; use ${allow}.`, { headers: { allow } });
}
