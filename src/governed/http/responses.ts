/** Governed answers: single records with `ETag`, 201 with `Location`, 405 with `Allow`, object bodies. */
import { CellgateError, validationError } from '../../errors.ts';
import { readJsonBody } from '../../http/body.ts';
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

/**
 * Reads a JSON object body (415/413/400 from `readJsonBody`); an array is a bulk mutation, which
 * governed resources refuse (one entity per request), and any other non-object is refused too.
 */
export async function readObjectBody(request: Request, limit: number): Promise<Record<string, unknown>> {
  const body = await readJsonBody(request, { limit });
  if (Array.isArray(body)) {
    throw validationError('Bulk mutations are not supported: send one JSON object per request.', [
      { path: 'root', message: 'Expected an object, received an array' },
    ]);
  }
  if (body === null || typeof body !== 'object') {
    throw validationError('Request body must be a JSON object.', [{ path: 'root', message: `Expected an object, received ${body === null ? 'null' : typeof body}` }]);
  }
  return body as Record<string, unknown>;
}
