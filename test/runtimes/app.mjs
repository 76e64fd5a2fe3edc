/**
 * The app every runtime smoke serves over the runtime's own HTTP server: the contract handler and
 * a governed API on the memory driver, composed into one Fetch handler, and (where Hono runs from
 * the smoke's imports) the same handler behind `toHono` in a Hono app that has a route of its own.
 * Plain JavaScript so Bun, Deno and workerd run it as is. The test (`runtimes.test.ts`, on Node)
 * calls the servers over HTTP with a token it signs with {@link SMOKE}.
 */

/** What the test needs to call the governed API: the token secret, its tenant and the workspace. */
export const SMOKE = {
  secret: 'runtime-smoke-secret-0123456789abcdef',
  tenantId: '0a000000-0000-4000-8000-000000000001',
  workspaceId: '0a000000-0000-4000-8000-000000000002',
};

/** A server stops by itself after this long, should the test that started it be gone. */
export const LIFETIME_MS = 120_000;

/** The one governed entity: a workspace note. */
const NOTE = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Note',
  description: 'A note (runtime smoke).',
  key: 'smoke.note',
  version: '1.0.0',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: { title: { type: 'string' } },
};

/**
 * The handler to serve, once its storage is migrated.
 *
 * @param {typeof import('cellgate')} cellgate the root entry, imported by the runtime's own script
 * @returns {Promise<import('cellgate').FetchHandler>}
 */
export async function createSmokeHandler(cellgate) {
  const { composeHandlers, createContractHandler, createGovernedApi, memoryStorage } = cellgate;
  const api = createGovernedApi({ storage: memoryStorage(), auth: { secret: SMOKE.secret }, resources: [NOTE] });
  await api.migrate();
  return composeHandlers(createContractHandler(), api);
}

/**
 * A Hono app that hands every request to `handler` through `toHono` first; what cellgate does not
 * own falls through to the app's own `GET /own`.
 *
 * @param {typeof import('hono').Hono} Hono
 * @param {typeof import('cellgate/adapters/hono').toHono} toHono
 * @param {import('cellgate').FetchHandler} handler
 */
export function createSmokeHono(Hono, toHono, handler) {
  const app = new Hono();
  app.use('*', toHono(handler));
  app.get('/own', (c) => c.text('answered by hono'));
  return app;
}

/**
 * Prints the one JSON line the test reads: the runtime and the base URLs of its servers.
 *
 * @param {{ runtime: string, url: string, hono?: string }} served
 */
export function announce(served) {
  console.log(JSON.stringify(served));
}
