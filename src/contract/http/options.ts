/**
 * Options of `createContractHandler`, and their validation at construction time: every mistake is
 * a {@link ConfigurationError} naming the option, raised before the first request.
 */
import { ConfigurationError } from '../../errors.ts';
import { isLogger, type Logger } from '../../logging.ts';
import type { ContractContextOptions } from '../context.ts';
import type { McpOptions } from '../mcp/index.ts';
import type { CorsOptions } from './cors.ts';

/** Loads one file of the docs page (`swagger-ui.css`, `swagger-ui-bundle.js`, …); `undefined` if absent. */
export type DocsAssetLoader = (file: string) => Promise<Uint8Array | string | undefined>;

/** Settings of the interactive docs page (`GET /api/docs`). */
export interface DocsOptions {
  /** Serve the page and its assets. `/api/openapi.json` is served either way. @default true */
  enabled?: boolean;
  /** Title of the page and of the OpenAPI document. @default 'cellgate contract API' */
  title?: string;
  /**
   * Where the Swagger UI files come from. The default reads the copy shipped in the package
   * (`dist/swagger-ui/`) through the runtime's file system (Node, Bun, Deno), on the first
   * request for each; on runtimes without one (workerd) supply a loader, e.g. over static assets.
   */
  assets?: DocsAssetLoader;
  /**
   * Adds to the OpenAPI document before it is first served (it is built once, then kept): e.g. a
   * governed API's paths, so `/api/openapi.json` and the docs page describe both halves of a host.
   * Receives the contract API's document and returns the one to serve.
   *
   * @example
   * import { mergeOpenApi } from 'cellgate/host'; // what the reference host does with its governed API
   * createContractHandler({ docs: { extendOpenApi: (document) => mergeOpenApi(document, api.openapi()) } });
   */
  extendOpenApi?: (document: OpenApiDocument) => OpenApiDocument;
}

/** An OpenAPI 3.1 document as JSON data. */
export type OpenApiDocument = Record<string, unknown>;

/**
 * Options of {@link createContractHandler}. All optional.
 *
 * @example
 * createContractHandler({ basePath: '/contract', cors: true, bodyLimit: 256 * 1024, mcp: { path: '/mcp' } });
 */
export interface ContractHandlerOptions extends ContractContextOptions {
  /**
   * Path prefix every route lives under (`/contract` → `/contract/api/primitives`). The handler
   * sees the full request URL and does the stripping itself.
   * @default ''
   */
  basePath?: string;
  /** CORS headers and preflight answers. @default false */
  cors?: boolean | CorsOptions;
  /** The MCP endpoint; `false` turns it off. @default { path: '/mcp' } */
  mcp?: boolean | McpOptions;
  /** The docs page; `false` turns the page off. @default true */
  docs?: boolean | DocsOptions;
  /**
   * `GET /health` (`{ "status": "ok" }`); `false` leaves that path to the host, e.g. an app that
   * mounts the handler at its root and keeps its own health check.
   * @default true
   */
  health?: boolean;
  /**
   * Called with every unexpected failure (the client sees a 500 `INTERNAL_ERROR` with a
   * correlation id and nothing else), e.g. to log it.
   * @default undefined
   */
  onError?: (error: unknown, request?: Request) => void;
  /**
   * A pino-style logger (`error`/`warn`/`info`/`debug` taking `(obj, msg?)`; a `pino()` logger
   * fits) receiving one `error` entry per unexpected failure: correlation id, method, path and
   * `err`. Without it and without `onError`, the entry is written as one JSON line to stderr.
   * @default one JSON line per failure on stderr
   */
  logger?: Logger;
}

/** Options after validation, with defaults applied. */
export interface ResolvedHandlerOptions {
  basePath: string;
  health: boolean;
  mcp: (McpOptions & { path: string }) | undefined;
  docs: { enabled: boolean; title: string; assets: DocsAssetLoader | undefined; extendOpenApi: DocsOptions['extendOpenApi'] };
  onError: ((error: unknown, request?: Request) => void) | undefined;
  logger: Logger | undefined;
}

/** Characters allowed in a path segment we put into a route pattern (no `:`, `*`, `+`, `?`, …). */
const SEGMENTS = /^(\/[A-Za-z0-9._~-]+)*$/;

function routePrefix(value: unknown, path: string, allowEmpty: boolean): string {
  if (typeof value !== 'string') throw new ConfigurationError(path, 'must be a string path');
  const trimmed = value.replace(/\/+$/, '');
  if (!allowEmpty && trimmed === '') throw new ConfigurationError(path, 'must not be empty');
  if (trimmed !== '' && !trimmed.startsWith('/')) throw new ConfigurationError(path, `must start with "/", got "${value}"`);
  if (!SEGMENTS.test(trimmed)) {
    throw new ConfigurationError(path, `may only contain path segments of letters, digits and . _ ~ -, got "${value}"`);
  }
  return trimmed;
}

/** Every option name, so a misspelt one (`basepath`) is refused instead of silently ignored. */
const OPTION_NAMES = new Set(['basePath', 'bodyLimit', 'cors', 'primitives', 'projectFolder', 'projectDir', 'mcp', 'docs', 'health', 'onError', 'logger']);

/** Checks the handler-level options and applies their defaults. */
export function resolveHandlerOptions(options: ContractHandlerOptions): ResolvedHandlerOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError('options', 'must be an object');
  for (const name of Object.keys(options)) {
    if (!OPTION_NAMES.has(name)) {
      throw new ConfigurationError(`options.${name}`, `is not an option; known options: ${[...OPTION_NAMES].join(', ')}`);
    }
  }
  const basePath = routePrefix(options.basePath ?? '', 'options.basePath', true);

  let mcp: ResolvedHandlerOptions['mcp'];
  const mcpOption = options.mcp ?? true;
  if (mcpOption === true) mcp = { path: '/mcp' };
  else if (mcpOption === false) mcp = undefined;
  else if (typeof mcpOption === 'object' && mcpOption !== null) {
    mcp = { ...mcpOption, path: routePrefix(mcpOption.path ?? '/mcp', 'options.mcp.path', false) };
    for (const key of ['allowedHosts', 'allowedOrigins'] as const) {
      const list = mcpOption[key];
      if (list !== undefined && list !== '*' && !(Array.isArray(list) && list.every((item) => typeof item === 'string'))) {
        throw new ConfigurationError(`options.mcp.${key}`, "must be a list of strings or '*'");
      }
    }
  } else throw new ConfigurationError('options.mcp', 'must be true, false or an object of MCP settings');

  const docsOption = options.docs ?? true;
  if (typeof docsOption !== 'boolean' && (typeof docsOption !== 'object' || docsOption === null)) {
    throw new ConfigurationError('options.docs', 'must be true, false or an object of docs settings');
  }
  const docsSettings: DocsOptions = typeof docsOption === 'boolean' ? { enabled: docsOption } : docsOption;
  const title = docsSettings.title ?? 'cellgate contract API';
  if (typeof title !== 'string' || title.trim() === '') throw new ConfigurationError('options.docs.title', 'must be a non-empty string');
  if (docsSettings.assets !== undefined && typeof docsSettings.assets !== 'function') {
    throw new ConfigurationError('options.docs.assets', 'must be a function (file name) => contents');
  }
  if (docsSettings.extendOpenApi !== undefined && typeof docsSettings.extendOpenApi !== 'function') {
    throw new ConfigurationError('options.docs.extendOpenApi', 'must be a function (document) => document');
  }
  const health = options.health ?? true;
  if (typeof health !== 'boolean') throw new ConfigurationError('options.health', 'must be true or false');
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw new ConfigurationError('options.onError', 'must be a function');
  }
  if (options.logger !== undefined && !isLogger(options.logger)) {
    throw new ConfigurationError('options.logger', 'must be a pino-style logger with error, warn, info and debug methods');
  }
  return {
    basePath,
    health,
    mcp,
    docs: { enabled: docsSettings.enabled ?? true, title, assets: docsSettings.assets, extendOpenApi: docsSettings.extendOpenApi },
    onError: options.onError,
    logger: options.logger,
  };
}
