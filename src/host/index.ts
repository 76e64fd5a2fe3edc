/**
 * `cellgate/host`: the reference host as a library, for `cellgate serve`, `cellgate migrate` and
 * the example hosts of the repository. It reads its settings from the environment (`PORT`,
 * `HOST`, `DATABASE_URL`, `CELLGATE_JWT_*`, …), builds the reference app (contract API, MCP, the
 * governed demo resources), serves it on `node:http` (or, with `cellgate/host/frameworks`, in a
 * web framework), and stops cleanly on SIGINT/SIGTERM. Node only (`node:http`, signals); the
 * database packages load only when `DATABASE_URL` asks for them. See docs/reference-host.md.
 *
 * @example
 * import { runReferenceHost } from 'cellgate/host';
 * process.exitCode = await runReferenceHost(process.env);
 */
export { createReferenceApp, type AppPart, type ReferenceApp, type ReferenceAppOptions } from './app.ts';
export { DEFAULT_HOST, DEFAULT_PORT, loadConfig, type ReferenceConfig } from './config.ts';
export {
  DEMO_ENTITY_FILES,
  DEMO_IDS,
  auditHashSecretFromEnv,
  authFromEnv,
  checkPublicKey,
  createDemoResources,
  loadDemoEntity,
  mergeOpenApi,
  rateLimitFromEnv,
  webhookFromEnv,
  type DemoResourceOptions,
  type DemoResources,
} from './demo.ts';
export { nodeServer, notFoundEnvelope, runHost, type MountHandler, type MountedServer } from './lifecycle.ts';
export { runReferenceHost, type RunOptions } from './run.ts';
export { runSmoke, smokeMain } from './smoke.ts';
export { DEFAULT_DATABASE_URL, createStorageFromUrl, type OpenedStorage } from './storage.ts';
