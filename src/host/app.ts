/**
 * The reference host's handler, without the server around it: the contract API and MCP at the
 * root, plus the governed demo resources on the configured storage. Every framework host
 * (`frameworks/`, the `examples/*-host` folders and `cellgate serve --framework`) mounts this same handler.
 */
import { composeHandlers, createContractHandler, type FetchHandler, type Logger } from 'cellgate';
import type { ReferenceConfig } from './config.ts';
import { createDemoResources, mergeOpenApi } from './demo.ts';
import { createStorageFromUrl } from './storage.ts';

/** A ready reference application. */
export interface ReferenceApp {
  /** All routes of the host; unmatched paths answer the 404 envelope (or fall through via `match`). */
  handler: FetchHandler;
  /** Releases what the app holds (storage connections). Call after the server stopped. */
  close(): Promise<void>;
  /** Lines to print under the `listening on …` line: what is served, the storage, a demo token. */
  banner: string[];
}

/** A part of the app that adds routes and banner lines, and may need closing. */
export interface AppPart {
  handlers: FetchHandler[];
  banner: string[];
  close?: () => Promise<void>;
}

/** Options of {@link createReferenceApp} beside the configuration. */
export interface ReferenceAppOptions {
  /** A pino-style logger both halves report to (docs/observability.md). @default failures as JSON lines on stderr */
  logger?: Logger | undefined;
}

/**
 * Builds the app for `config`. Async because storage is opened (and migrated) before serving.
 *
 * @example
 * const app = await createReferenceApp(loadConfig({ PORT: '0', DATABASE_URL: 'memory:' }));
 * const response = await app.handler(new Request('http://localhost/health'));
 */
export async function createReferenceApp(config: ReferenceConfig, options: ReferenceAppOptions = {}): Promise<ReferenceApp> {
  // Every 500 (contract, governed, and the node adapter's last resort) is logged as one JSON line on
  // stderr with its correlation id and stack: the library's default when no `logger`/`onError` is
  // given (docs/security.md). `options.logger` (e.g. `pino()`) sends them, and the governed writes, to your own logger.
  const { logger } = options;
  const parts: AppPart[] = [];

  // --- storage + governed demo resources ---------------------------------------------------------
  // storage.ts opens the driver for DATABASE_URL; demo.ts migrates and mounts the
  // customers / invoices / activity-events resources on it. Each contributes one AppPart here.
  // (mount spot: storage + governed)
  const { storage, label } = await createStorageFromUrl(config.env.DATABASE_URL, config.env.DATABASE_READ_URLS);
  parts.push({ handlers: [], banner: [`storage       ${label}`], close: () => storage.close() });
  const demo = await createDemoResources({ env: config.env, storage, logger });
  parts.push(demo);
  // The docs page reads /api/openapi.json: the contract handler serves it with both halves merged.
  const contract = createContractHandler({
    ...(logger === undefined ? {} : { logger }),
    docs: { extendOpenApi: (document) => mergeOpenApi(document, demo.api.openapi()) },
  });

  const banner = [
    'contract API  /api/schemas, /api/primitives, /api/examples, /api/validate, /api/guidance',
    'docs          /api/docs   (OpenAPI: /api/openapi.json)',
    'MCP           POST /mcp',
    'health        /health',
    ...parts.flatMap((part) => part.banner),
  ];
  return {
    handler: composeHandlers(contract, ...parts.flatMap((part) => part.handlers)),
    banner,
    async close() {
      // Close in reverse order of opening (resources before the storage they use).
      for (const part of [...parts].reverse()) await part.close?.();
    },
  };
}
