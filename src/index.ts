/**
 * cellgate: contract intelligence for Cell manifests and governed business entities, as Fetch
 * handlers. This root entry is runtime-neutral (no `node:*`, no database client in its import
 * graph); Node adapters and SQL drivers live in their own subpaths.
 *
 * What belongs here (docs/contributing.md, docs/decisions/B39.md): the factories, errors and
 * functions an app calls, and the public types. The zod schemas live in `cellgate/schemas`, what
 * only adapters need in `cellgate/adapter-kit`; helpers stay internal. The runtime names are
 * pinned by test/packaging/root-exports.test.ts.
 */

// Errors an app catches or throws.
export { CellgateError, ConfigurationError } from './errors.ts';
export type * from './errors.ts';
export { MigrationRefusedError, type DriftRefusal } from './storage/drift.ts';

// Composing Fetch handlers, and the default logger.
export { composeHandlers, createFetchHandler } from './http/handler.ts';
export type { FetchHandler, MatchFunction } from './http/handler.ts';
export type { ErrorContext } from './http/responses.ts';
export { stderrJsonLogger, type Logger, type LogMethod } from './logging.ts';
export type * from './storage/types.ts';

// The contract API: the handler, and the same intelligence as library functions.
export {
  createContractHandler,
  type ContractHandler,
  type ContractHandlerOptions,
  type CorsOptions,
  type DocsAssetLoader,
  type DocsOptions,
  type OpenApiDocument,
} from './contract/create-contract-handler.ts';
export type { ContractContext, ContractContextOptions } from './contract/context.ts';
// MCP endpoint options (types only: the MCP SDK loads lazily, on the first /mcp request).
export type { McpOptions, AllowList, OriginGuardOptions } from './contract/mcp/index.ts';
export { validateManifest, validateEntity, validatePage } from './contract/validate/index.ts';
export { normalizeManifest, type NormalizedManifest } from './contract/normalize.ts';
export { createPrimitiveRegistry } from './contract/catalog/index.ts';
export { listExamples, getExample } from './contract/examples/index.ts';
export { recommend, suggestPages, suggestRelations, explainErrors } from './contract/guidance/index.ts';
// Types of the contract's documents (their zod schemas are in `cellgate/schemas`).
export type * from './contract/schema/index.ts';
export type * from './contract/describe/index.ts';
export type * from './contract/catalog/index.ts';
export type { ExampleEntry, ExampleContent } from './contract/examples/index.ts';
export type * from './contract/guidance/schemas.ts';

// Governed resources: the HTTP factories, the service, entity documents, the in-memory driver.
export {
  createGovernedResource,
  type GovernedResource,
  type GovernedResourceOptions,
  type GovernedHttpOptions,
} from './governed/create-governed-resource.ts';
export { createGovernedApi } from './governed/http/api.ts';
export type * from './governed/http/index.ts';
export { signDevToken } from './governed/auth/dev-token.ts';
export type * from './governed/auth/index.ts';
export type * from './governed/rate-limit.ts';
export {
  defineEntity,
  loadEntity,
  validateEntityDocument,
  toStorageModel,
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
export { createGovernedService } from './governed/service.ts';
export { BusinessRuleError, rulesFor } from './governed/rules/business-rules.ts';
export { eraseRecord } from './governed/service-erase.ts';
export { createMetricsRegistry } from './governed/metrics.ts';
export type * from './governed/index.ts';
export { createWebhookDispatcher } from './governed/events/webhooks.ts';
export { generateWebhookSecret } from './governed/events/signing.ts';
export type * from './governed/events/index.ts';
// The verifiable audit log: keys, checkpoints, the verifiers.
export { generateNoteKey, noteSigner, verifierKeyOf } from './governed/log/note-keys.ts';
export { createCheckpoints } from './governed/log/checkpoints.ts';
export { verifyLog, VerifyLogError } from './governed/log/verify.ts';
export { verifyProofBundle } from './governed/log/verify-bundle.ts';
export { noteVerifier } from './governed/log/note-keys.ts';
export { checkpointBody, noteSignedBy, parseCheckpoint, parseNote, signNote } from './governed/log/note.ts';
export { consistencyProofOf, inclusionProofOf, proofBundleOf } from './governed/log/proofs.ts';
export { exportLogNdjson, ndjsonLogSource } from './governed/log/ndjson.ts';
export { verifyConsistency, verifyInclusion } from './storage/merkle/tree.ts';
export { leafHash, nodeHash } from './storage/merkle/hash.ts';
export { LEAF_FORMAT, leafData } from './storage/merkle/leaf.ts';
export type * from './governed/log/index.ts';
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
// The typed `cellgate.config.ts` of the `cellgate` command.
export { defineConfig, type CellgateConfig } from './config/index.ts';
