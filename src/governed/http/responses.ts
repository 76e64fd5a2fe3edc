/** Governed answers: single records with `ETag`, 201 with `Location`, 405 with `Allow`. */
import { CellgateError } from '../../errors.ts';
import { jsonResponse } from '../../http/responses.ts';
import type { RecordView } from '../types.ts';

/** A single-resource answer with `ETag: "<version>"`. */
export function recordResponse(view: RecordView, status = 200, headers: Record<string, string> = {}): Response {
  return jsonResponse(view, status, { ...headers, etag: `"${view.meta.version}"` });
}

/** 405 `METHOD_NOT_ALLOWED` listing the methods of the path in `Allow`. */
export function methodNotAllowed(method: string, allow: readonly string[]): CellgateError {
  return new CellgateError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed here; use ${allow.join(', ')}.`, {
    headers: { allow: allow.join(', ') },
  });
}
