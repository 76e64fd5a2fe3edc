/**
 * `createContractHandler(options?)`: the contract-intelligence API (schemas, primitives, examples,
 * validation, guidance, docs, health) and the MCP endpoint as one Fetch handler.
 *
 * Every answer goes through one place: a route's data is serialised (or served from memory when
 * it never changes), and anything thrown becomes the error envelope in `errorResponse`.
 */
import { createContractContext, type ContractContext } from './context.ts';
import { contractRoutes } from './http/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import { createCorsPolicy, withHeaders } from './http/cors.ts';
import { resolveHandlerOptions, type ContractHandlerOptions } from './http/options.ts';
import { createRouteMatcher, type MountedEndpoint } from './http/router.ts';
import type { RouteDefinition } from './http/route.ts';
import { createFetchHandler, type FetchHandler } from '../http/handler.ts';
import { errorResponse } from '../http/responses.ts';
import type { McpOptions } from './mcp/index.ts';
import { CellgateAttributes, spanTemplate, withSpan } from '../telemetry/request-span.ts';

export type { ContractHandlerOptions, DocsOptions, DocsAssetLoader, OpenApiDocument } from './http/options.ts';
export type { CorsOptions } from './http/cors.ts';

/** A contract handler: a {@link FetchHandler} plus the context its services use. */
export interface ContractHandler extends FetchHandler {
  /** The shared context (primitive registry, body limit), e.g. for an MCP stdio server. */
  readonly context: ContractContext;
}

/**
 * The MCP endpoint, loaded on its first request: the MCP SDK stays out of start-up and out of
 * hosts that never call it.
 */
function lazyMcpEndpoint(context: ContractContext, options: McpOptions, route: string): MountedEndpoint['serve'] {
  let endpoint: Promise<(request: Request) => Promise<Response>> | undefined;
  return withSpan(spanTemplate('POST', route, { [CellgateAttributes.operation]: 'mcp' }), async (request) => {
    endpoint ??= import('./mcp/index.ts').then(({ createMcpEndpoint }) => createMcpEndpoint(context, options));
    return (await endpoint)(request);
  });
}

/**
 * Creates the contract API handler. Options are checked here: a mistake throws a
 * `ConfigurationError` naming the option, never a failure at request time.
 *
 * @example createContractHandler
 * import { createServer } from 'node:http';
 * import { createContractHandler } from 'cellgate';
 * import { toNodeHandler } from 'cellgate/adapters/node';
 *
 * const contract = createContractHandler({ basePath: '/contract', cors: true });
 * createServer(toNodeHandler(contract)).listen(3000);
 */
export function createContractHandler(options: ContractHandlerOptions = {}): ContractHandler {
  const resolved = resolveHandlerOptions(options);
  const context = createContractContext(options);
  const cors = createCorsPolicy(options.cors);

  const routes: RouteDefinition[] = [];
  // Without the health route the host's own `/health` answers (the route is then absent from the OpenAPI document too).
  const own = resolved.health ? contractRoutes : contractRoutes.filter((route) => route.path !== '/health');
  routes.push(...own, ...docsRoutes(resolved, () => routes));
  const mounts: MountedEndpoint[] = resolved.mcp
    ? [{ path: resolved.mcp.path, methods: 'POST', serve: lazyMcpEndpoint(context, resolved.mcp, resolved.basePath + resolved.mcp.path) }]
    : [];
  const route = createRouteMatcher(routes, { basePath: resolved.basePath, context, cors, mounts });

  const handler = createFetchHandler(async (request) => {
    let response: Response | undefined;
    try {
      // In local mode the project folder's primitives load asynchronously; a failed load is a
      // configuration error the host sees through onError (the client gets a 500 envelope).
      if (context.projectFolder !== undefined) await context.ready;
      response = await route(request);
    } catch (error) {
      response = errorResponse(error, { onError: resolved.onError, logger: resolved.logger, request });
    }
    if (response === undefined) return undefined;
    if (request.method === 'HEAD' && response.body !== null) {
      response = new Response(null, { status: response.status, headers: response.headers });
    }
    return cors ? withHeaders(response, cors.headers(request.headers.get('origin'))) : response;
  }) as ContractHandler;
  Object.defineProperty(handler, 'context', { value: context, enumerable: true });
  return handler;
}
