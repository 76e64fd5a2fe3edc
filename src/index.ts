/**
 * cellgate: contract intelligence for Cell manifests and governed business entities, as Fetch
 * handlers. This root entry is runtime-neutral (no `node:*`, no database client in its import
 * graph); Node adapters and SQL drivers live in their own subpaths.
 */
export * from './errors.ts';
// HTTP building blocks for apps. What only adapters need (the body and client-address seams, light
// responses, raw JSON answers) lives in `cellgate/adapter-kit`, not here.
export {
  DEFAULT_BODY_LIMIT,
  isJsonContentType,
  readJsonBody,
  readTextBody,
  type ReadJsonOptions,
} from './http/body.ts';
export { composeHandlers, createFetchHandler, withSecurityHeaders, type FetchHandler, type MatchFunction } from './http/handler.ts';
export { JSON_CONTENT_TYPE, errorResponse, jsonResponse, withHeaders, type ErrorContext } from './http/responses.ts';
export { clientAddress } from './http/client-address.ts';
export { stderrJsonLogger, type Logger, type LogMethod } from './logging.ts';
export type * from './storage/types.ts';
export {
  createContractHandler,
  type ContractHandler,
  type ContractHandlerOptions,
  type CorsOptions,
  type DocsAssetLoader,
  type DocsOptions,
  type OpenApiDocument,
} from './contract/create-contract-handler.ts';
export { createContractContext, type ContractContext, type ContractContextOptions } from './contract/context.ts';
// MCP endpoint options (types only: the MCP SDK loads lazily, on the first /mcp request).
export type { McpOptions, AllowList, OriginGuardOptions } from './contract/mcp/index.ts';
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
// Governed resources, domain core: entity documents, the service, the in-memory driver, metrics.
export {
  EntityDocumentSchema,
  FieldDescriptorSchema,
  FieldPermissionsSchema,
  DataBlockSchema,
  defineEntity,
  loadEntity,
  validateEntityDocument,
  toStorageModel,
  entityReference,
  resourcePathName,
  snakeToCamel,
  camelToSnake,
  type EntityDefinitionDocument,
  type EntityDocumentInput,
  type FieldDescriptor,
  type FieldDescriptorInput,
  type FieldPermissions,
  type DataBlock,
  type EntityDefinition,
  type EntityTypes,
  type EntityTypesOf,
  type GeneralEntityTypes,
  type EntityRecordOf,
  type RecordFieldsOf,
  type CreateFieldsOf,
  type EntityDocumentShape,
  type WidenedEntityDocument,
} from './entity-document/index.ts';
export * from './governed/index.ts';
export * from './governed/events/index.ts';
export * from './governed/log/index.ts';
export {
  purgeHistory,
  purgeHistoryAsOperator,
  type OperatorPurgeOptions,
  type PurgeHistoryOptions,
  type PurgeReport,
  type PurgeRunOptions,
  type RetentionCounts,
  type TenantPurgeReport,
} from './governed/lifecycle/purge-history.ts';
export { memoryStorage, type MemoryStorageOptions } from './storage/memory/index.ts';
export { MigrationRefusedError, type DriftRefusal } from './storage/drift.ts';
// The typed `cellgate.config.ts` of the `cellgate` command.
export { defineConfig, type CellgateConfig } from './config/index.ts';
// Contract core: zod schemas of the Cell manifest contract, validation, normalization, schema descriptions.
export * from './contract/schema/index.ts';
export { validateManifest, validateEntity, validatePage } from './contract/validate/index.ts';
export { normalizeManifest, type NormalizedManifest } from './contract/normalize.ts';
export * from './contract/describe/index.ts';
// Contract content: the UI primitive catalog, example manifests and guidance.
export {
  createPrimitiveRegistry,
  CORE_CATEGORIES,
  PRIMITIVE_CATEGORIES,
  PRIMITIVE_SOURCES,
  PrimitiveCategorySchema,
  PrimitiveSourceSchema,
  PropDefinitionSchema,
  PrimitivePropsSchema,
  PrimitiveSlotSchema,
  PrimitiveExampleSchema,
  PrimitiveContractSchema,
  CorePrimitiveEntrySchema,
  CustomPrimitiveEntrySchema,
  PrimitiveEntrySchema,
  PrimitiveListSchema,
  PrimitiveDetailSchema,
  PrimitiveListQuerySchema,
  PrimitiveExamplesRequestSchema,
  PrimitiveExamplesSchema,
  ValidatePropsRequestSchema,
  ScaffoldRequestSchema,
  ScaffoldFileSchema,
  ScaffoldResultSchema,
  type PrimitiveRegistry,
  type PrimitiveRegistryOptions,
  type PrimitiveListFilter,
  type ProjectFolder,
  type ScaffoldWrite,
  type PrimitiveCategory,
  type PrimitiveSource,
  type PropDefinition,
  type PrimitiveContract,
  type PrimitiveContractInput,
  type PrimitiveEntry,
  type CorePrimitiveEntry,
  type CustomPrimitiveEntry,
  type PrimitiveDetail,
  type PrimitiveExample,
  type PrimitiveExamples,
  type ScaffoldRequest,
  type ScaffoldResult,
} from './contract/catalog/index.ts';
export {
  listExamples,
  getExample,
  ExampleEntrySchema,
  ExampleListSchema,
  ExampleContentSchema,
  type ExampleEntry,
  type ExampleContent,
} from './contract/examples/index.ts';
export {
  recommend,
  suggestPages,
  suggestRelations,
  explainErrors,
  GUIDANCE_DOMAINS,
  RecommendInputSchema,
  RecommendResultSchema,
  SuggestedEntitySchema,
  RelationSuggestionSchema,
  SuggestPagesInputSchema,
  SuggestPagesResultSchema,
  SuggestRelationsInputSchema,
  SuggestRelationsResultSchema,
  ExplainErrorsInputSchema,
  ErrorExplanationSchema,
  ExplainErrorsResultSchema,
  RecommendRequestSchema,
  SuggestPagesRequestSchema,
  SuggestRelationsRequestSchema,
  ExplainErrorsRequestSchema,
  type GuidanceDomain,
  type SuggestedEntity,
  type RelationSuggestion,
  type RecommendResult,
  type SuggestPagesResult,
  type RelationInputEntity,
  type ErrorExplanation,
} from './contract/guidance/index.ts';
