/**
 * The routes of one governed resource (SEED.md "Area B: operations", DECISIONS B3–B8): collection
 * GET/POST, item GET/PATCH/DELETE, rollback, versions. Paths the resource does not own resolve
 * `undefined`, so a host can chain its own routes after it.
 */
import { IttyRouter, type IRequest } from 'itty-router';
import { validationError } from '../../errors.ts';
import { searchParamsOf } from '../../http/query.ts';
import { jsonResponse } from '../../http/responses.ts';
import type { MatchFunction } from '../../http/handler.ts';
import type { GovernedService } from '../service-types.ts';
import type { GovernedContext } from '../types.ts';
import { historyParamsOf, idempotencyKeyOf, ifMatchOf, onlyParams, versionParam } from './headers.ts';
import { idOf, scopeOf, type ResourcePatterns } from './paths.ts';
import { answer, governed, type Pipeline } from './pipeline.ts';
import type { ListQueryParser } from './query.ts';
import { methodNotAllowed, readObjectBody, recordResponse } from './responses.ts';

/** Everything the routes of one resource need. */
export interface ResourceRouteOptions {
  service: GovernedService;
  patterns: ResourcePatterns;
  parseList: ListQueryParser;
  pipeline: Pipeline;
  bodyLimit: number;
}

const queryOf = (request: Request) => searchParamsOf(request.url);

/** Builds the match function of one resource. */
export function resourceRoutes(options: ResourceRouteOptions): MatchFunction {
  const { service, patterns, parseList, pipeline, bodyLimit } = options;
  const scopeKind = service.entity.scope;
  const router = IttyRouter<IRequest>();

  /** An authenticated operation with the scope (and id) of the path resolved into the context. */
  const route =
    (operation: (request: IRequest, context: GovernedContext, id: string) => Promise<Response>, withId = true) =>
    (request: IRequest) =>
      governed(
        pipeline,
        request,
        (context) => operation(request, context, withId ? idOf(request.params) : ''),
        () => scopeOf(request.params, scopeKind),
      );
  const refuse = (allow: readonly string[]) => (request: IRequest) =>
    answer(pipeline, request, () => {
      throw methodNotAllowed(request.method, allow);
    });

  router.get(
    patterns.collection,
    route(async (request, context) => jsonResponse(await service.list(context, parseList(queryOf(request)))), false),
  );
  router.post(
    patterns.collection,
    route(async (request, context) => {
      onlyParams(queryOf(request), []);
      const idempotencyKey = idempotencyKeyOf(request);
      const body = await readObjectBody(request, bodyLimit);
      const view = await service.create(context, body, idempotencyKey === undefined ? {} : { idempotencyKey });
      const location = `${new URL(request.url).pathname.replace(/\/+$/, '')}/${view.data.id}`;
      return recordResponse(view, 201, { location });
    }, false),
  );
  router.all(patterns.collection, refuse(['GET', 'POST']));

  router.get(
    patterns.item,
    route(async (request, context, id) => {
      const params = queryOf(request);
      onlyParams(params, ['includeDeleted']);
      const includeDeleted = params.get('includeDeleted');
      if (includeDeleted !== null && includeDeleted !== 'true' && includeDeleted !== 'false') {
        throw validationError('Invalid query parameter: includeDeleted.', [{ path: 'includeDeleted', message: 'includeDeleted must be true or false' }]);
      }
      return recordResponse(await service.get(context, id, { includeDeleted: includeDeleted === 'true' }));
    }),
  );
  router.patch(
    patterns.item,
    route(async (request, context, id) => {
      onlyParams(queryOf(request), []);
      const ifMatch = ifMatchOf(request);
      const body = await readObjectBody(request, bodyLimit);
      return recordResponse(await service.update(context, id, body, ifMatch === undefined ? {} : { ifMatch }));
    }),
  );
  router.delete(
    patterns.item,
    route(async (request, context, id) => {
      const params = queryOf(request);
      onlyParams(params, ['expectedVersion']);
      const ifMatch = ifMatchOf(request);
      const expectedVersion = versionParam(params, 'expectedVersion');
      if (ifMatch === undefined && expectedVersion === undefined) {
        throw validationError('DELETE needs the expected version: send If-Match: "<version>" or ?expectedVersion=<version>.', [
          { path: 'expectedVersion', message: 'Required (or an If-Match header)' },
        ]);
      }
      return recordResponse(
        await service.delete(context, id, {
          ...(ifMatch === undefined ? {} : { ifMatch }),
          ...(expectedVersion === undefined ? {} : { expectedVersion }),
        }),
      );
    }),
  );
  router.all(patterns.item, refuse(['GET', 'PATCH', 'DELETE']));

  router.post(
    patterns.rollback,
    route(async (request, context, id) => {
      onlyParams(queryOf(request), []);
      const ifMatch = ifMatchOf(request);
      const body = await readObjectBody(request, bodyLimit);
      return recordResponse(await service.rollback(context, id, body, ifMatch === undefined ? {} : { ifMatch }));
    }),
  );
  router.all(patterns.rollback, refuse(['POST']));

  router.get(
    patterns.versions,
    route(async (request, context, id) => jsonResponse(await service.versions(context, id, historyParamsOf(queryOf(request))))),
  );
  router.all(patterns.versions, refuse(['GET']));

  return async (request) => (await router.fetch(request)) as Response | undefined;
}
