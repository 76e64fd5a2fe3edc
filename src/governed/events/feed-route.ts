/**
 * The change feed: `GET /v1/events?after&resourceType&workspaceId&limit&wait`. Committed events of
 * the caller's tenant (from the token) in commit order, after the cursor `after`, within the
 * API's history reach like the audit reads (`audit:read`, and per resource type the workspaces
 * where the caller may view it: `src/governed/history-reach.ts`). `wait=<seconds>` (at most
 * {@link EVENT_FEED_MAX_WAIT_SECONDS}) holds the request open until an event arrives or the time
 * is up (long-poll), then answers, possibly with an empty page.
 */
import { ConfigurationError, validationError } from '../../errors.ts';
import type { MatchFunction } from '../../http/handler.ts';
import { ANY_METHOD, createPathRouter, type PathHandler } from '../../http/path-router.ts';
import { searchParamsOf } from '../../http/query.ts';
import { rawJsonResponse } from '../../http/responses.ts';
import {
  EVENT_FEED_DEFAULT_LIMIT,
  EVENT_FEED_MAX_LIMIT,
  EVENT_FEED_MAX_PAGE_LENGTH,
  EVENT_FEED_MAX_WAIT_SECONDS,
  EVENT_FEED_MAX_WAITERS,
  EVENT_FEED_MAX_WAITERS_PER_ACTOR,
} from '../../limits.ts';
import type { EventQuery, StorageDriver, StoredEvent } from '../../storage/types.ts';
import { isUuid } from '../codec.ts';
import { maskEvent } from '../field-access.ts';
import { requireAuditRead, type HistoryReachPolicy } from '../history-reach.ts';
import { answer, governed, type Pipeline } from '../http/pipeline.ts';
import { methodNotAllowed } from '../http/responses.ts';
import { admitWaiter, waitersOf, type FeedWaiterLimits } from './wake.ts';
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

/** Feed reads in flight per storage, by query: concurrent readers of the same page share one read. */
const inFlight = new WeakMap<StorageDriver, Map<string, Promise<StoredEvent[]>>>();

/**
 * One read of a page, bounded by {@link EVENT_FEED_MAX_PAGE_LENGTH} in the driver. Identical
 * queries in flight at the same time (waiters of one tenant woken by one commit) share one read.
 */
function readPage(storage: StorageDriver, query: EventQuery): Promise<StoredEvent[]> {
  let reads = inFlight.get(storage);
  if (reads === undefined) {
    reads = new Map();
    inFlight.set(storage, reads);
  }
  const bounded: EventQuery = { ...query, maxLength: Math.min(query.maxLength ?? EVENT_FEED_MAX_PAGE_LENGTH, EVENT_FEED_MAX_PAGE_LENGTH) };
  const key = JSON.stringify(bounded);
  const shared = reads.get(key);
  if (shared !== undefined) return shared;
  const read = storage.events.listEvents(bounded).finally(() => reads.delete(key));
  reads.set(key, read);
  return read;
}

/** Who waits, for the waiter caps: the caller's key and the caps that apply (docs/security.md). */
export interface FeedWaiter {
  actorKey: string;
  limits: FeedWaiterLimits;
}

/** Options of the change feed (`createGovernedApi({ eventFeed })`). */
export interface EventFeedOptions {
  /** Most feed requests waiting at once in this process; one more: 429. @default 4096 */
  maxWaiters?: number;
  /** Most feed requests one actor may have waiting at once; one more: 429. @default 8 */
  maxWaitersPerActor?: number;
}

/** The waiter caps of `options`, checked (a configuration error names the bad option). */
export function feedWaiterLimits(options: EventFeedOptions = {}): FeedWaiterLimits {
  const count = (name: keyof EventFeedOptions, fallback: number): number => {
    const value = options[name] ?? fallback;
    if (!Number.isSafeInteger(value) || value < 1) throw new ConfigurationError(`eventFeed.${name}`, 'must be a positive integer.');
    return value;
  };
  return { perProcess: count('maxWaiters', EVENT_FEED_MAX_WAITERS), perActor: count('maxWaitersPerActor', EVENT_FEED_MAX_WAITERS_PER_ACTOR) };
}

// A caller in code names no actor: only the process cap applies to it.
const IN_CODE: FeedWaiter = { actorKey: '', limits: { perProcess: EVENT_FEED_MAX_WAITERS, perActor: Number.MAX_SAFE_INTEGER } };

/**
 * Reads a page; with `waitMs`, waits until a page has events, the time is up, or the client went
 * away. The first read happens at once, so a malformed cursor is a 400 without waiting. A request
 * that has to wait takes a waiter slot first: past the caps of `waiter` (by default, only the
 * per-process cap), 429 `RATE_LIMITED`.
 */
export async function readFeed(
  storage: StorageDriver,
  query: EventQuery,
  waitMs: number,
  signal?: AbortSignal,
  waiter: FeedWaiter = IN_CODE,
): Promise<StoredEvent[]> {
  const deadline = Date.now() + waitMs;
  const hub = waitersOf(storage);
  let release: (() => void) | undefined;
  try {
    for (;;) {
      // The tenant's head before the read: a waiter wakes when it moves past it.
      const basis = waitMs > 0 ? await hub.basis(query.tenantId) : undefined;
      const events = await readPage(storage, query);
      const left = deadline - Date.now();
      if (events.length > 0 || left <= 0 || signal?.aborted) return events;
      release ??= admitWaiter(`${query.tenantId}\u0000${waiter.actorKey}`, waiter.limits);
      await hub.next(query.tenantId, basis, left, signal);
    }
  } finally {
    release?.();
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
export function eventFeedRoutes(
  storage: StorageDriver,
  pipeline: Pipeline,
  basePath: string,
  reach: HistoryReachPolicy,
  limits: FeedWaiterLimits = feedWaiterLimits(),
): MatchFunction {
  const router = createPathRouter();
  const path = `${basePath}/v1/events`;
  const span = spanTemplate('GET', path, { [CellgateAttributes.operation]: 'events' });
  const serve: PathHandler = (request) =>
    traced(request, span, () =>
      governed(pipeline, request, async ({ actor }) => {
        requireAuditRead(actor);
        const { query, waitMs } = feedQueryOf(searchParamsOf(request.url), actor.tenantId);
        // The reach of the audit reads: per resource type, the workspaces where the actor may view it.
        query.reach = reach.reach(actor, query.workspaceId);
        const events = await readFeed(storage, query, waitMs, request.signal, { actorKey: actor.id, limits });
        // Each event as this reader may see it: fields it may not view leave its diff and snapshot.
        const seen = events.map((event) => maskEvent(event, reach.maskFor(actor, event.resourceType, event.workspaceId)));
        return rawJsonResponse(feedPage(seen, query));
      }),
    );
  // HEAD answers as GET does (the handler drops the body), as on every governed path.
  router.add('GET', path, serve);
  router.add('HEAD', path, serve);
  router.add(ANY_METHOD, path, (request) => answer(pipeline, request, () => Promise.reject(methodNotAllowed(request.method, ['GET']))));
  return (request) => router.fetch(request);
}
