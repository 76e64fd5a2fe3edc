/**
 * cellgate: contract intelligence for Cell manifests and governed business entities, as Fetch
 * handlers. This root entry is runtime-neutral (no `node:*`, no database client in its import
 * graph); Node adapters and SQL drivers live in their own subpaths.
 */
export * from './errors.ts';
export * from './http/index.ts';
export type * from './storage/types.ts';
export {
  createContractHandler,
  type ContractHandler,
  type ContractHandlerOptions,
  type CorsOptions,
  type DocsAssetLoader,
  type DocsOptions,
} from './contract/create-contract-handler.ts';
export { createContractContext, type ContractContext, type ContractContextOptions } from './contract/context.ts';
// Governed resources over HTTP: createGovernedResource, createGovernedApi, token verification, rate limiting.
export {
  createGovernedResource,
  type GovernedResource,
  type GovernedResourceOptions,
  type GovernedHttpOptions,
} from './governed/create-governed-resource.ts';
export * from './governed/http/index.ts';
export * from './governed/auth/index.ts';
export * from './governed/rate-limit.ts';
