/**
 * Read-your-writes over read replicas at the HTTP edge (docs/scaling-out.md, B37). With a storage
 * that routes reads (`storage.consistency`, `postgresStorage({ replicas })`), a GET or HEAD runs
 * in a read context carrying the `Cellgate-Consistency` request header, and any other request in
 * a write context whose answer carries the token of what it committed in the same header. A
 * malformed header is a 400, never a silent stale read. Without such a storage: the match as is.
 */
import { CellgateError } from '../../errors.ts';
import type { MatchFunction } from '../../http/handler.ts';
import { errorResponse, withHeaders } from '../../http/responses.ts';
import type { StorageDriver } from '../../storage/types.ts';

/** The request and response header of the consistency token. */
export const CONSISTENCY_HEADER = 'Cellgate-Consistency';

/** `match` with reads and writes routed by `storage.consistency`, when the storage has it. */
export function withConsistency(storage: StorageDriver, match: MatchFunction): MatchFunction {
  const routing = storage.consistency;
  if (routing === undefined) return match;
  return async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD') {
      const sent = request.headers.get(CONSISTENCY_HEADER);
      if (sent !== null && !routing.isToken(sent)) {
        return errorResponse(new CellgateError('BAD_REQUEST', `${CONSISTENCY_HEADER} must be a token from a write answer's ${CONSISTENCY_HEADER} header.`), {
          request,
        });
      }
      return routing.read(sent ?? undefined, () => match(request));
    }
    const { value, token } = await routing.write(() => match(request));
    return value === undefined || token === undefined ? value : withHeaders(value, { [CONSISTENCY_HEADER]: token });
  };
}
