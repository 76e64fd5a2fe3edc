/**
 * The HTTP routes of the verifiable log, nouns under `/v1/audit` with the reach of the tenant-wide
 * audit reads (`audit:read`; a record out of the caller's reach is 404), served beside the
 * operation table like the change feed (docs/decisions/B36.md):
 *
 * - `GET /v1/audit/checkpoint`: the signed checkpoint (text/plain) of every record committed before the request;
 * - `GET /v1/audit/proof?from=&to=`: a consistency proof;
 * - `GET /v1/audit/{auditId}/proof?size=`: an inclusion proof;
 * - `GET /v1/audit/{auditId}/bundle`: a self-contained proof bundle.
 *
 * Every answer is `Cache-Control: no-store`; HEAD answers as GET.
 */
import { CellgateError, validationError } from '../../errors.ts';
import type { MatchFunction } from '../../http/handler.ts';
import { ANY_METHOD, createPathRouter, type PathHandler } from '../../http/path-router.ts';
import { searchParamsOf } from '../../http/query.ts';
import { jsonResponse } from '../../http/responses.ts';
import type { StorageDriver } from '../../storage/types.ts';
import { isUuid } from '../codec.ts';
import { requireAuditRead, type HistoryReachPolicy } from '../history-reach.ts';
import { answer, governed, type Pipeline } from '../http/pipeline.ts';
import { methodNotAllowed } from '../http/responses.ts';
import type { Actor } from '../types.ts';
import type { Checkpoints } from './checkpoints.ts';
import { consistencyProofOf, inclusionProofOf, proofBundleOf } from './proofs.ts';

const NO_STORE = { 'cache-control': 'no-store' };

/** A tree size from the query: a non-negative integer of at most 15 digits, or undefined when absent. */
function sizeParam(params: URLSearchParams, name: string, allowed: readonly string[]): number | undefined {
  for (const key of params.keys())
    if (!allowed.includes(key))
      throw validationError(`Unknown query parameter: ${key.slice(0, 100)}.`, [{ path: key.slice(0, 100), message: 'Unknown parameter' }]);
  const value = params.get(name);
  if (value === null) return undefined;
  if (!/^(0|[1-9][0-9]{0,14})$/.test(value))
    throw validationError(`Invalid query parameter: ${name}.`, [{ path: name, message: `${name} must be a tree size (an integer ≥ 0)` }]);
  return Number(value);
}

/** Builds the match function of the log routes under `basePath`. */
export function logRoutes(storage: StorageDriver, pipeline: Pipeline, basePath: string, reach: HistoryReachPolicy, checkpoints: Checkpoints): MatchFunction {
  const log = storage.log!;
  const router = createPathRouter();
  const base = `${basePath}/v1/audit`;

  /** The caller's record by id, 404 when absent, of another tenant or out of reach. */
  const recordOf = async (actor: Actor, auditId: string) => {
    const record = isUuid(auditId) ? await storage.getAudit(actor.tenantId, auditId.toLowerCase()) : null;
    if (record === null || !reach.admits(actor, record.resourceType, record.workspaceId)) throw new CellgateError('NOT_FOUND', 'Audit record not found.');
    return record;
  };

  const route = (pattern: string, serve: (actor: Actor, params: URLSearchParams, id: string) => Promise<Response>) => {
    const handler: PathHandler = (request, params) =>
      governed(pipeline, request, async ({ actor }) => {
        requireAuditRead(actor);
        return serve(actor, searchParamsOf(request.url), params.auditId ?? '');
      });
    router.add('GET', `${base}${pattern}`, handler);
    router.add('HEAD', `${base}${pattern}`, handler);
    router.add(ANY_METHOD, `${base}${pattern}`, (request) => answer(pipeline, request, () => Promise.reject(methodNotAllowed(request.method, ['GET']))));
  };

  route('/checkpoint', async (actor, params) => {
    sizeParam(params, '', []);
    const checkpoint = await checkpoints.checkpoint(actor.tenantId);
    return new Response(checkpoint.note, { headers: { 'content-type': 'text/plain; charset=utf-8', ...NO_STORE } });
  });
  route('/proof', async (actor, params) => {
    const from = sizeParam(params, 'from', ['from', 'to']);
    const to = sizeParam(params, 'to', ['from', 'to']);
    if (from === undefined || to === undefined)
      throw validationError('from and to are required.', [{ path: from === undefined ? 'from' : 'to', message: 'Required' }]);
    return jsonResponse({ data: await consistencyProofOf(log, actor.tenantId, from, to) }, 200, NO_STORE);
  });
  route('/:auditId/proof', async (actor, params, id) => {
    const size = sizeParam(params, 'size', ['size']);
    const record = await recordOf(actor, id);
    const index = await log.leafIndex(actor.tenantId, record.id);
    if (index === null) throw new CellgateError('NOT_FOUND', 'Audit record not found in the log.');
    return jsonResponse({ data: await inclusionProofOf(log, actor.tenantId, index, size) }, 200, NO_STORE);
  });
  route('/:auditId/bundle', async (actor, params, id) => {
    sizeParam(params, '', []);
    const record = await recordOf(actor, id);
    // A bundle carries the stored record whole: a reader with hidden fields would see them (B36).
    const mask = reach.maskFor(actor, record.resourceType, record.workspaceId);
    if (mask !== undefined && mask.hidden.length > 0)
      throw new CellgateError('FORBIDDEN', 'Some fields of this record are hidden from you; its proof bundle would show them. Ask for its proof instead.');
    return jsonResponse({ data: await proofBundleOf(log, checkpoints, record) }, 200, NO_STORE);
  });
  return (request) => router.fetch(request);
}
