/**
 * `runAdapterConformance()`: the behaviour every framework adapter must show, as vitest cases run
 * over real HTTP against a real server of that framework. cellgate runs it for node:http, Express,
 * Fastify, Hono and Next; a third-party adapter proves itself with the same call.
 *
 * @example
 * import { runAdapterConformance } from 'cellgate/testing';
 * runAdapterConformance({
 *   name: 'my-framework',
 *   start: async (handler, { prefix }) => {
 *     const app = myFramework();
 *     app.get('/__host/own', () => 'host route');        // the host's own route (fall-through case)
 *     app.mount(prefix ?? '/', toMyFramework(handler));
 *     const server = await app.listen(0, '127.0.0.1');
 *     return { url: `http://127.0.0.1:${server.port}`, close: () => server.close() };
 *   },
 * });
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createContractHandler } from '../contract/create-contract-handler.ts';
import { composeHandlers, type FetchHandler } from '../http/handler.ts';
import { createProbe, type Probe } from './adapter-conformance-probe.ts';
import { areaACases, errorCases, governedCases, mcpCases, transportCases } from './adapter-conformance-cases.ts';
import { createGovernedFixture, type GovernedFixture } from './adapter-conformance-governed.ts';

/** A running server under test. */
export interface AdapterServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:53211`. */
  url: string;
  /** Stops the server (and whatever it holds). */
  close(): Promise<void>;
}

/** How the suite asks for a server. */
export interface AdapterStartOptions {
  /** Mount the handler under this prefix (the handler was built with the same `basePath`). */
  prefix?: string;
  /** Let the framework parse JSON bodies before the adapter runs (e.g. `express.json()`). */
  parseJson?: boolean;
}

/** A case group the adapter cannot support, with the reason shown in the skipped test's name. */
export type AdapterConformanceSkips = Partial<Record<'prefix' | 'parsedBody' | 'fallThrough' | 'clientAddress', string>>;

/** Options of {@link runAdapterConformance}. */
export interface AdapterConformanceOptions {
  /** Shown in the suite title, e.g. `express`. */
  name: string;
  /**
   * Boots a real server of the framework on 127.0.0.1, port 0, with `handler` mounted through the
   * adapter (under `options.prefix` when given), and a native route `GET /__host/own` answering
   * `200 host route` as text, so the suite can check that unmatched requests reach the host.
   */
  start(handler: FetchHandler, options: AdapterStartOptions): Promise<AdapterServer>;
  /** Case groups to skip, each with its reason. */
  skip?: AdapterConformanceSkips;
  /** When set, the whole suite is skipped with this reason. */
  skipAll?: string;
}

/** What every case group reads: the servers under test and the bare handlers to compare with. */
export interface ConformanceContext {
  /** Server with probe + contract + governed handlers mounted at the root. */
  url: string;
  /** The same handler, called in-process (the reference answer). */
  bare: FetchHandler;
  probe: Probe;
  governed: GovernedFixture;
  /** Server with the contract handler mounted under `/platform`, or undefined when skipped. */
  prefixed?: { url: string; bare: FetchHandler };
  /** Server whose framework parsed JSON bodies first, or undefined when skipped. */
  parsed?: { url: string; bare: FetchHandler };
}

/** Registers the conformance cases for one adapter. */
export function runAdapterConformance(options: AdapterConformanceOptions): void {
  const skips = options.skip ?? {};
  const title = options.skipAll ? `adapter conformance: ${options.name} (skipped: ${options.skipAll})` : `adapter conformance: ${options.name}`;
  describe.skipIf(Boolean(options.skipAll))(title, () => {
    const servers: AdapterServer[] = [];
    const context = {} as ConformanceContext;
    const current = () => context;

    beforeAll(async () => {
      context.probe = createProbe();
      context.governed = await createGovernedFixture();
      context.bare = composeHandlers(context.probe.handler, createContractHandler(), context.governed.handler);
      const main = await options.start(context.bare, {});
      servers.push(main);
      context.url = main.url;
      if (!skips.prefix) {
        const bare = createContractHandler({ basePath: '/platform' });
        const server = await options.start(bare, { prefix: '/platform' });
        servers.push(server);
        context.prefixed = { url: server.url, bare };
      }
      if (!skips.parsedBody) {
        const bare = composeHandlers(context.probe.handler, createContractHandler());
        const server = await options.start(bare, { parseJson: true });
        servers.push(server);
        context.parsed = { url: server.url, bare };
      }
    });
    afterAll(async () => {
      for (const server of servers.reverse()) await server.close();
    });

    areaACases(current, skips);
    governedCases(current);
    errorCases(current);
    transportCases(current, skips);
    mcpCases(current);
  });
}
