/** The HTTP side of governed resources: composition, hooks, deprecation, list query parsing. */
export {
  createGovernedApi,
  type GovernedApi,
  type GovernedApiOptions,
  type GovernedApiResource,
  type GovernedApiResources,
  type GovernedResourcesOf,
} from './api.ts';
export type {
  GovernedApiResourceOptions,
  LooseGovernedResources,
  NamedGovernedResources,
  EveryResourceNamed,
  LiteralResourceName,
  TypesOfApiResource,
} from '../api-resources.ts';
export type { DeprecationOptions } from './headers.ts';
export type { UpgradeOptions, UpgradeProgress, UpgradeResult } from '../upgrade/run-upgrade.ts';
export type { RejectedRecord } from '../upgrade/copy-record.ts';
export type { GovernedHooks } from './pipeline.ts';
export type { ResourcePatterns } from './paths.ts';
export type { ClientIpOptions } from './request-meta.ts';
export { createListQueryParser, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type ListQueryParser, type ListableEntity, type ParsedListParams } from '../list-query.ts';
