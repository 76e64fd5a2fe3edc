/**
 * The change feed: `GET /v1/events?after&resourceType&workspaceId&limit&wait`. Committed events of
 * the caller's tenant (from the token) in commit order, after the cursor `after`, within the
 * API's history reach like the audit reads (`audit:read`, and per resource type the workspaces
 * where the caller may view it: `src/governed/history-reach.ts`). `wait=<seconds>` (at most
 * {@link EVENT_FEED_MAX_WAIT_SECONDS}) holds the request open until an event arrives or the time
 * is up (long-poll), then answers, possibly with an empty page.
 */
import { validationError } from '../../errors.ts';
import type { MatchFunction } from '../../http/handler.ts';
import { ANY_METHOD, createPathRouter } from '../../http/path-router.ts';
import { searchParamsOf } from '../../http/query.ts';
import { rawJsonResponse } from '../../http/responses.ts';
import { EVENT_FEED_DEFAULT_LIMIT, EVENT_FEED_MAX_LIMIT, EVENT_FEED_MAX_PAGE_LENGTH, EVENT_FEED_MAX_WAIT_SECONDS, EVENT_FEED_POLL_MS } from '../../limits.ts';
import type { EventQuery, StorageDriver, StoredEvent } from '../../storage/types.ts';
import { isUuid } from '../codec.ts';
import { requireAuditRead, type HistoryReachPolicy } from '../history-reach.ts';
import { answer, governed, type Pipeline } from '../http/pipeline.ts';
import { methodNotAllowed } from '../http/responses.ts';
import { nextCommitOr } from './wake.ts';
import { CellgateAttributes, spanTemplate, traced } from '../../telemetry/request-span.ts';

const RESOURCE_TYPE = /^[a-z][a-z0-9_]*\.[A-Z][A-Za-z0-9]*@v\d+$/;

/** An integer query parameter in [min, max], or undefined when absent. */
function intParam(params: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  if (!/^\d{1,6}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw validationError(`Invalid query parameter: ${name}.`, [{ path: name, message: `${name} must be an integer from ${min} to ${max}` }]);
  }
  return Number(value);
}

const FEED_PARAMS = new Set(['after', 'resourceType', 'workspaceId', 'limit', 'wait']);

/** 400 for a parameter the feed does not know, or one given twice. */
function onlyFeedParams(params: URLSearchParams): void {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!FEED_PARAMS.has(name))
      throw validationError(`Unknown query parameter: ${name.slice(0, 100)}.`, [{ path: name.slice(0, 100), message: 'Unknown parameter' }]);
    if (seen.has(name)) throw validationError(`Repeated query parameter: ${name}.`, [{ path: name, message: 'Give it once' }]);
    seen.add(name);
  }
}

/** The feed query of a request, checked (400 on anything unknown or malformed). */
export function feedQueryOf(params: URLSearchParams, tenantId: string): { query: EventQuery; waitMs: number } {
  onlyFeedParams(params);
  const resourceType = params.get('resourceType');
  if (resourceType !== null && (resourceType.length > 200 || !RESOURCE_TYPE.test(resourceType))) {
    throw validationError('Invalid query parameter: resourceType.', [
      { path: 'resourceType', message: 'resourceType must be an entity reference such as crm.Invoice@v1' },
    ]);
  }
  const workspaceId = params.get('workspaceId');
  if (workspaceId !== null && !isUuid(workspaceId))
    throw validationError('Invalid query parameter: workspaceId.', [{ path: 'workspaceId', message: 'workspaceId must be a UUID' }]);
  const after = params.get('after');
  const query: EventQuery = {
    tenantId,
    limit: intParam(params, 'limit', 1, EVENT_FEED_MAX_LIMIT) ?? EVENT_FEED_DEFAULT_LIMIT,
    ...(after === null ? {} : { after }),
    ...(resourceType === null ? {} : { resourceType }),
    ...(workspaceId === null ? {} : { workspaceId: workspaceId.toLowerCase() }),
  };
  return { query, waitMs: (intParam(params, 'wait', 0, EVENT_FEED_MAX_WAIT_SECONDS) ?? 0) * 1000 };
}

/**
 * Reads a page; with `waitMs`, polls until a page has events, the time is up, or the client went
 * away. The first read happens at once, so a malformed cursor is a 400 without waiting.
 */
export async function readFeed(storage: StorageDriver, query: EventQuery, waitMs: number, signal?: AbortSignal): Promise<StoredEvent[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const events = await storage.events.listEvents(query);
    const left = deadline - Date.now();
    if (events.length > 0 || left <= 0 || signal?.aborted) return events;
    await nextCommitOr(storage, Math.min(EVENT_FEED_POLL_MS, left), signal);
  }
}

/**
 * The JSON text of a feed page: the events in order up to {@link EVENT_FEED_MAX_PAGE_LENGTH}
 * characters (at least one), and `nextCursor` after the last one included. Each event is
 * serialised once, for the budget and the answer alike.
 */
export function feedPage(events: readonly StoredEvent[], query: Pick<EventQuery, 'after' | 'limit'>, budget = EVENT_FEED_MAX_PAGE_LENGTH): string {
  const parts: string[] = [];
  let length = 0;
  for (const event of events) {
    const text = JSON.stringify(event);
    length += text.length + 1;
    if (length > budget && parts.length > 0) break;
    parts.push(text);
  }
  const last = events[parts.length - 1];
  const meta = { limit: query.limit, nextCursor: last !== undefined ? last.cursor : (query.after ?? null) };
  return `{"data":[${parts.join(',')}],"meta":${JSON.stringify(meta)}}`;
}

/** Builds the match function of the change feed under `basePath`, serving events within `reach`. */
export function eventFeedRoutes(storage: StorageDriver, pipeline: Pipeline, basePath: string, reach: HistoryReachPolicy): MatchFunction {
  const router = createPathRouter();
  const path = `${basePath}/v1/events`;
  const span = spanTemplate('GET', path, { [CellgateAttributes.operation]: 'events' });
  router.add('GET', path, (request) =>
    traced(request, span, () =>
      governed(pipeline, request, async ({ actor }) => {
        requireAuditRead(actor);
        const { query, waitMs } = feedQueryOf(searchParamsOf(request.url), actor.tenantId);
        // The reach of the audit reads: per resource type, the workspaces where the actor may view it.
        query.reach = reach.reach(actor, query.workspaceId);
        const events = await readFeed(storage, query, waitMs, request.signal);
        return rawJsonResponse(feedPage(events, query));
      }),
    ),
  );
  router.add(ANY_METHOD, path, (request) => answer(pipeline, request, () => Promise.reject(methodNotAllowed(request.method, ['GET']))));
  return (request) => router.fetch(request);
}
