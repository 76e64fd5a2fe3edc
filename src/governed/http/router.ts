/**
 * One router for every governed resource of a handler (and the tenant audit routes): the request
 * path is cut into segments once, looked up by scope and resource name in maps built at start-up,
 * and dispatched to the operation table's entry for the method. Cost per request does not grow
 * with the number of resources.
 *
 * Order of work for every operation: authenticate and rate-limit (pipeline), resolve the scope
 * from the path, parse the query and headers, check access, and only then read and parse the
 * body, so a caller without access never makes the server read its body.
 */
import type { z } from 'zod';
import { readJsonBody } from '../../http/body.ts';
import type { MatchFunction } from '../../http/handler.ts';
import { searchParamsOf } from '../../http/query.ts';
import { jsonResponse } from '../../http/responses.ts';
import type { EntityScope, RecordScope, StorageDriver } from '../../storage/types.ts';
import { SERVICE_OPERATIONS } from '../service.ts';
import type { ServiceContext, ServiceOperation } from '../service-context.ts';
import { parseId, parseInput, validationErrorOf } from '../service-schemas.ts';
import type { Actor, GovernedContext, GovernedScope, RecordView } from '../types.ts';
import type { HistoryReachPolicy } from '../history-reach.ts';
import { exportTenantAudit, getTenantAudit, listTenantAudit, type AuditExportInput, type AuditListInput } from './audit.ts';
import { ndjsonResponse, wantsNdjson } from './ndjson.ts';
import {
  AuditExportQuerySchema,
  GOVERNED_OPERATIONS,
  SCOPE_PREFIX,
  TARGET_SUFFIX,
  type GovernedOperation,
  type OperationTarget,
  type RequestParts,
} from './operations.ts';
import { answer, governed, type Pipeline } from './pipeline.ts';
import { adoptTraceId, CellgateAttributes, spanTemplate, traced, type RequestSpan, type SpanTemplate } from '../../telemetry/request-span.ts';
import { methodNotAllowed, recordResponse } from './responses.ts';
import type { ListPageView } from '../list-stream/list-page.ts';
import { listResponse } from '../list-stream/list-response.ts';
import { reportUnexpectedFailure } from '../../logging.ts';
import { sizedListContext } from '../list-stream/sized-list-context.ts';

/** A resource as the router serves it. */
export interface RoutedResource {
  ctx: ServiceContext;
  pipeline: Pipeline;
  bodyLimit: number;
}

/** What the router serves under one base path. */
export interface RouterSettings {
  basePath: string;
  resources: readonly RoutedResource[];
  /** Serve `/v1/audit` on this storage with this pipeline, within this history reach. */
  audit?: { storage: StorageDriver; pipeline: Pipeline; reach: HistoryReachPolicy } | undefined;
  /**
   * Serve `GET /v1/openapi.json` (public, like any API description) with the document of its
   * caller: the actor of a request that carries a token, null for an anonymous one. Fields the
   * caller may not view are absent from its schemas (docs/field-access.md).
   */
  openapi?: { pipeline: Pipeline; document: (actor: Actor | null) => unknown } | undefined;
}

/** An operation compiled for one resource: its query schema built once from the entity. */
interface Compiled {
  operation: GovernedOperation;
  query: z.ZodType;
  /** Name and attributes of its spans, built once. */
  span: SpanTemplate;
}

type Targets = Map<OperationTarget, Compiled[]>;

interface Mounted {
  resource: RoutedResource;
  targets: Targets;
}

/** Readable names of the headers operations read, for the paths of their 400 issues. */
const HEADER_NAMES: Record<string, string> = { 'if-match': 'If-Match', 'idempotency-key': 'Idempotency-Key', prefer: 'Prefer' };

function compile(entity: Parameters<GovernedOperation['query']>[0], tenant: boolean, route: string, resourceType?: string): Targets {
  const targets: Targets = new Map();
  for (const operation of GOVERNED_OPERATIONS) {
    if ((operation.service === undefined) !== tenant) continue;
    const list = targets.get(operation.target) ?? [];
    const attributes = {
      [CellgateAttributes.operation]: operation.name,
      ...(resourceType === undefined ? {} : { [CellgateAttributes.resourceType]: resourceType }),
    };
    list.push({ operation, query: operation.query(entity), span: spanTemplate(operation.method, route + TARGET_SUFFIX[operation.target], attributes) });
    targets.set(operation.target, list);
  }
  return targets;
}

/** The path of an absolute request URL (a `Request` has already normalised it). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start === -1) return '/';
  let end = url.length;
  for (const mark of ['?', '#']) {
    const at = url.indexOf(mark, start);
    if (at !== -1 && at < end) end = at;
  }
  return url.slice(start, end);
}

/** Query parameters as one object of strings; a name given twice is refused. */
function plainQuery(params: URLSearchParams): Record<string, unknown> {
  // Null prototype: a parameter named `__proto__` must stay a member (and be refused as unknown),
  // not set the object's prototype and vanish.
  const query: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const repeated: string[] = [];
  for (const [name, value] of params) {
    if (Object.hasOwn(query, name)) repeated.push(name);
    else query[name] = value;
  }
  if (repeated.length > 0)
    throw validationErrorOf(
      'query parameter',
      [...new Set(repeated)].map((path) => ({ path, message: `${path} is given more than once` })),
    );
  return query;
}

/** The headers an operation reads, each parsed with its schema. */
function headersOf(operation: GovernedOperation, request: Request): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(operation.headers?.shape ?? {})) {
    const value = request.headers.get(name);
    if (value !== null) parsed[name] = parseInput(schema as z.ZodType, value, 'header', HEADER_NAMES[name] ?? name);
  }
  return parsed;
}

/** The workspace and cell named in a resource path, checked as ids (404 for a malformed one). */
function scopeOfPath(raw: { workspaceId?: string; cellId?: string }): GovernedScope {
  const scope: GovernedScope = {};
  if (raw.workspaceId !== undefined) scope.workspaceId = parseId(raw.workspaceId, 'Workspace');
  if (raw.cellId !== undefined) scope.cellId = parseId(raw.cellId, 'Cell');
  return scope;
}

/** Parses the query, headers and path id of a request into an operation's parts. */
function partsOf(compiled: Compiled, request: Request, id: string, version?: string): RequestParts {
  const params = searchParamsOf(request.url);
  const query = parseInput(compiled.query, (compiled.operation.queryObject ?? plainQuery)(params), 'query parameter') as Record<string, unknown>;
  return { id, query, headers: headersOf(compiled.operation, request) as RequestParts['headers'], ...(version === undefined ? {} : { version }) };
}

/** Builds the match function of every resource (and the audit routes) under one base path. */
export function createGovernedRouter(settings: RouterSettings): MatchFunction {
  const prefix = `${settings.basePath}/v1/`;
  const byScope: Record<EntityScope, Map<string, Mounted>> = { 'system-global': new Map(), 'workspace-shared': new Map(), 'cell-isolated': new Map() };
  for (const resource of settings.resources) {
    const { entity, resourceName, resourceType } = resource.ctx;
    byScope[entity.scope].set(resourceName, {
      resource,
      targets: compile(entity, false, `${settings.basePath}${SCOPE_PREFIX[entity.scope]}/${resourceName}`, resourceType),
    });
  }
  // Lists over HTTP read their page in size-bounded batches and stream it (docs/decisions/B25.md).
  const listContexts = new Map(settings.resources.map((resource) => [resource, sizedListContext(resource.ctx)] as const));
  const audit = settings.audit === undefined ? undefined : { targets: compile({ fields: {} }, true, `${settings.basePath}/v1/audit`), ...settings.audit };

  /** Runs one entity-level operation. */
  const runResource = (
    resource: RoutedResource,
    compiled: Compiled,
    request: Request,
    path: string,
    raw: { workspaceId?: string; cellId?: string; id?: string; version?: string },
    span?: RequestSpan,
  ) => {
    const ctx = compiled.operation.answer === 'list' ? listContexts.get(resource)! : resource.ctx;
    return governed(
      resource.pipeline,
      request,
      async (context: GovernedContext) => {
        if (span !== undefined) adoptTraceId(context.meta, span);
        const id = raw.id === undefined ? '' : parseId(raw.id);
        const scope: RecordScope = { tenantId: context.actor.tenantId, workspaceId: context.scope?.workspaceId ?? null, cellId: context.scope?.cellId ?? null };
        const { operation } = compiled;
        const service = SERVICE_OPERATIONS[operation.service!] as unknown as ServiceOperation<Record<string, unknown>, unknown>;
        const head = operation.input(partsOf(compiled, request, id, raw.version));
        service.access(ctx, context, scope, head);
        const input =
          operation.body === undefined
            ? head
            : { ...head, body: parseInput(operation.body, await readJsonBody(request, { limit: resource.bodyLimit }), 'body member') };
        const result = await service.run(ctx, context, scope, input);
        if (operation.answer === 'list')
          return listResponse(result as ListPageView, operation.answerHeaders?.(head), (error) =>
            reportUnexpectedFailure(error, context.meta?.requestId ?? '', request, resource.pipeline),
          );
        if (operation.answer !== 'record') return jsonResponse(result, 200, operation.answerHeaders?.(head));
        const view = result as RecordView;
        span?.span.setAttribute(CellgateAttributes.version, view.data.version);
        return operation.status === 201 ? recordResponse(view, 201, { location: `${path}/${view.data.id}` }) : recordResponse(view);
      },
      () => scopeOfPath(raw),
    );
  };

  /** Runs one tenant-level (audit) operation. */
  const runAudit = (compiled: Compiled, request: Request, id: string | undefined) =>
    governed(audit!.pipeline, request, async ({ actor }) => {
      // The export: the same path asked for NDJSON, with its own query (docs/audit-export.md).
      if (compiled.operation.target === 'audit' && wantsNdjson(request)) {
        const input = parseInput(AuditExportQuerySchema, plainQuery(searchParamsOf(request.url)), 'query parameter') as AuditExportInput;
        return ndjsonResponse(exportTenantAudit(audit!.storage, audit!.reach, actor, input));
      }
      const parts = partsOf(compiled, request, id === undefined ? '' : parseId(id, 'Audit record'));
      if (compiled.operation.target === 'audit')
        return jsonResponse(await listTenantAudit(audit!.storage, audit!.reach, actor, compiled.operation.input(parts) as AuditListInput));
      return jsonResponse({ data: await getTenantAudit(audit!.storage, audit!.reach, actor, parts.id) });
    });

  const dispatch = (
    pipeline: Pipeline,
    targets: Targets,
    target: OperationTarget,
    request: Request,
    run: (compiled: Compiled, span?: RequestSpan) => Promise<Response>,
  ) => {
    const candidates = targets.get(target);
    if (candidates === undefined) return Promise.resolve(undefined);
    // HEAD is answered by the GET operation (RFC 9110 §9.3.2); the handler drops the body.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const compiled = candidates.find((entry) => entry.operation.method === method);
    if (compiled === undefined) {
      return answer(pipeline, request, () => {
        throw methodNotAllowed(
          request.method,
          candidates.map((entry) => entry.operation.method),
        );
      });
    }
    return traced(request, compiled.span, (span) => run(compiled, span));
  };

  return async (request) => {
    const path = pathOf(request.url);
    if (!path.startsWith(prefix)) return undefined;
    let end = path.length;
    while (end > prefix.length && path.charCodeAt(end - 1) === 47) end -= 1;
    const segments = path.slice(prefix.length, end).split('/');
    if (segments.includes('')) return undefined;

    if (segments.length === 1 && segments[0] === 'openapi.json' && settings.openapi !== undefined) {
      const { pipeline, document } = settings.openapi;
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return answer(pipeline, request, () => Promise.reject(methodNotAllowed(request.method, ['GET'])));
      // A token makes it the caller's document (a bad token is 401, as on every governed path).
      if (request.headers.has('authorization')) return governed(pipeline, request, async ({ actor }) => jsonResponse(document(actor)));
      return answer(pipeline, request, () => jsonResponse(document(null)));
    }
    if (segments[0] === 'audit' && audit !== undefined && segments.length <= 2) {
      return dispatch(audit.pipeline, audit.targets, segments.length === 1 ? 'audit' : 'auditItem', request, (compiled) =>
        runAudit(compiled, request, segments[1]),
      );
    }
    let mounted: Mounted | undefined;
    let at = 0;
    const raw: { workspaceId?: string; cellId?: string; id?: string; version?: string } = {};
    if (segments[0] === 'workspaces' && segments.length >= 3) {
      raw.workspaceId = segments[1]!;
      const cell = segments[2] === 'cells' && segments.length >= 5 ? byScope['cell-isolated'].get(segments[4]!) : undefined;
      if (cell !== undefined) {
        raw.cellId = segments[3]!;
        mounted = cell;
        at = 5;
      } else {
        mounted = byScope['workspace-shared'].get(segments[2]!);
        at = 3;
      }
    }
    if (mounted === undefined) {
      delete raw.workspaceId;
      mounted = byScope['system-global'].get(segments[0]!);
      at = 1;
    }
    if (mounted === undefined) return undefined;
    const tail = segments.length - at;
    const target: OperationTarget | undefined =
      tail === 0
        ? 'collection'
        : tail === 1
          ? 'item'
          : tail === 2 && segments[at + 1] === 'rollback'
            ? 'rollback'
            : tail === 2 && segments[at + 1] === 'versions'
              ? 'versions'
              : tail === 2 && segments[at + 1] === 'changes'
                ? 'changes'
                : tail === 3 && segments[at + 1] === 'versions'
                  ? 'version'
                  : undefined;
    if (target === undefined) return undefined;
    if (tail > 0) raw.id = segments[at]!;
    if (target === 'version') raw.version = segments[at + 2]!;
    const resource = mounted.resource;
    const collectionPath = path.slice(0, prefix.length) + segments.slice(0, at).join('/');
    return dispatch(resource.pipeline, mounted.targets, target, request, (compiled, span) =>
      runResource(resource, compiled, request, collectionPath, raw, span),
    );
  };
}
