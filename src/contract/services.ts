/**
 * The Area A answers, one function each. REST routes (`create-contract-handler.ts`) and MCP tools
 * (`mcp/`) both call these and only format the result, so there is one implementation per answer.
 *
 * Each function returns exactly the data the REST endpoint answers and throws {@link CellgateError}
 * for bad parameters (400 `VALIDATION_ERROR` with `details.fields`, 404 `NOT_FOUND`). Functions
 * taking a request body accept `unknown` and check it with the request schema exported here, the
 * same schema OpenAPI and the MCP input schemas are built from.
 */
import { z } from 'zod';
import type { FieldIssue } from '../errors.ts';
import { MAX_JSON_DEPTH } from '../limits.ts';
import { CellManifestSchema, type CellManifest } from './schema/index.ts';
import { requestValidationError, withinBoundsByLength } from '../validation/bounds.ts';
import { parseOptions } from './schema/messages.ts';
import { compileQuickCheck, type QuickCheck } from './schema/quick-check.ts';
import type { ContractContext } from './context.ts';
import { checkSchemaVersion, describeCapabilitySchema, describeEntitySchema, describeManifestSchema, describePageSchema } from './describe/index.ts';
import {
  validateBoundedManifest,
  validateProvenManifest,
  validateEntity as validateEntityCore,
  validateManifest as validateManifestCore,
  validatePage as validatePageCore,
} from './validate/index.ts';
import { normalizeManifest as normalizeManifestCore } from './normalize.ts';
import { validateEntityDocument as validateEntityDocumentCore } from '../entity-document/index.ts';
import { getExample as getExampleCore, listExamples as listExamplesCore } from './examples/index.ts';
import {
  ExplainErrorsInputSchema,
  RecommendInputSchema,
  SuggestPagesInputSchema,
  SuggestRelationsInputSchema,
  explainErrors as explainErrorsCore,
  recommend as recommendCore,
  suggestPages as suggestPagesCore,
  suggestRelations as suggestRelationsCore,
} from './guidance/index.ts';
import type { NormalizeResult, ValidationResult } from '../validation/results.ts';

// ---------------------------------------------------------------------------------------------
// Request schemas of the validation endpoints (the guidance ones come from ./guidance).
// ---------------------------------------------------------------------------------------------

/** A JSON object member of a request body; its contents are checked by the validator itself. */
const documentMember = (what: string) =>
  z.record(z.string(), z.unknown()).describe(`The ${what} to check, as a JSON object. Its contents are reported in the result, not refused.`);

/** Body of `POST /api/validate/manifest` and `/api/validate/normalize`. */
export const ValidateManifestRequestSchema = z.object({ manifest: documentMember('CellManifestV1') }).meta({ id: 'ValidateManifestRequest' });
/** Body of `POST /api/validate/entity`. */
export const ValidateEntityRequestSchema = z.object({ entity: documentMember('EntityDefinition') }).meta({ id: 'ValidateEntityRequest' });
/** Body of `POST /api/validate/page`. */
export const ValidatePageRequestSchema = z.object({ page: documentMember('PageDefinition') }).meta({ id: 'ValidatePageRequest' });
/** Body of `POST /api/validate/entity-document`: the standalone entity definition document itself. */
export const EntityDocumentRequestSchema = z
  .record(z.string(), z.unknown())
  .describe('A standalone entity definition document (snake_case form), sent as the body itself.')
  .meta({ id: 'EntityDocumentRequest' });

/** `{ manifest }` request body. */
export type ValidateManifestRequest = z.infer<typeof ValidateManifestRequestSchema>;
/** `{ entity }` request body. */
export type ValidateEntityRequest = z.infer<typeof ValidateEntityRequestSchema>;
/** `{ page }` request body. */
export type ValidatePageRequest = z.infer<typeof ValidatePageRequestSchema>;

/**
 * Checks a request body or parameter object against its schema, with the contract's wording of
 * every problem (a missing member reads `Required`, a wrong type `Expected <type>, received
 * <type>`, a list too long `Array must contain at most <n> element(s)`), whatever zod's own
 * default messages say. At most 100 problems are listed (`details.fieldsOmitted` counts the rest).
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, what = 'Request body'): z.output<T> {
  const result = schema.safeParse(input, parseOptions);
  if (result.success) return result.data;
  const fields: FieldIssue[] = result.error.issues.map((issue) => ({
    path: issue.path.length === 0 ? 'root' : issue.path.map(String).join('.'),
    message: issue.message,
  }));
  throw requestValidationError(what, fields);
}

/** An empty query value means "no filter" (as `?type=` does on the reference service). */
const filterValue = (value: string | null | undefined): string | undefined => (value ? value : undefined);

// ---------------------------------------------------------------------------------------------
// Schema discovery
// ---------------------------------------------------------------------------------------------

/** Parameters of the manifest and entity schema answers. */
export interface SchemaVersionParams {
  /** `latest` or `v1alpha1` (docs/decisions/A01.md); anything else is 400. @default "latest" */
  version?: string | null;
}
/** Parameters of the page and capability schema answers. */
export interface SchemaTypeParams {
  /** A page type / capability type; a known one narrows the answer, an unknown one is 400. */
  type?: string | null;
}

/** `GET /api/schemas/manifest`, MCP `get_manifest_schema`. */
export function getManifestSchema(params: SchemaVersionParams = {}) {
  checkSchemaVersion(filterValue(params.version));
  return describeManifestSchema();
}

/** `GET /api/schemas/entity`, MCP `get_entity_definition_schema`. */
export function getEntitySchema(params: SchemaVersionParams = {}) {
  checkSchemaVersion(filterValue(params.version));
  return describeEntitySchema();
}

/** `GET /api/schemas/page[?type]`, MCP `get_page_schema`. */
export function getPageSchema(params: SchemaTypeParams = {}) {
  return describePageSchema(filterValue(params.type));
}

/** `GET /api/schemas/capability[?type]`, MCP `get_capability_schema`. */
export function getCapabilitySchema(params: SchemaTypeParams = {}) {
  return describeCapabilitySchema(filterValue(params.type));
}

// ---------------------------------------------------------------------------------------------
// Primitives
// ---------------------------------------------------------------------------------------------

/** Filters of the primitive list. */
export interface ListPrimitivesParams {
  /** collection, input, form, layout, page, display or feedback; unknown → 400. */
  category?: string | null;
  /** `core` or `custom`; unknown → 400. */
  source?: string | null;
}

/** `GET /api/primitives[?category&source]`, MCP `list_primitives`. */
export function listPrimitives(context: ContractContext, params: ListPrimitivesParams = {}) {
  return context.registry.list({ category: filterValue(params.category), source: filterValue(params.source) });
}

/** `GET /api/primitives/{key}`, MCP `get_primitive_contract`. 404 for an unknown key. */
export function getPrimitive(context: ContractContext, key: string) {
  return context.registry.get(key);
}

/** MCP `get_primitive_examples`. */
export function getPrimitiveExamples(context: ContractContext, params: { key: string; version?: string }) {
  return context.registry.examples(params.key, params.version);
}

/** MCP `validate_primitive_props`. */
export function validatePrimitiveProps(context: ContractContext, params: { key: string; version?: string; props: unknown }): ValidationResult {
  return context.registry.validateProps(params.key, params.version, params.props);
}

/** MCP `scaffold_primitive`: writes only inside the context's project folder, if any. */
export function scaffoldPrimitive(context: ContractContext, params: Parameters<ContractContext['registry']['scaffold']>[0]) {
  return context.registry.scaffold(params);
}

// ---------------------------------------------------------------------------------------------
// Examples
// ---------------------------------------------------------------------------------------------

/** `GET /api/examples`, MCP `list_examples`. */
export function listExamples() {
  return listExamplesCore();
}

/** `GET /api/examples/{key}`, MCP `get_example_manifest`. 404 for an unknown key. */
export function getExample(key: string) {
  return getExampleCore(key);
}

// ---------------------------------------------------------------------------------------------
// Validation (200 whether valid or not, docs/decisions/A13.md)
// ---------------------------------------------------------------------------------------------

/**
 * A validation request body, checked once. The compiled check proves the common well-formed body
 * without building zod's copy of it (the validators only read the one member); anything it does
 * not prove goes through {@link parseInput}, which words every problem.
 */
function validationRequest<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  let quick = quickRequests.get(schema);
  if (!quick) quickRequests.set(schema, (quick = compileQuickCheck(schema)));
  return quick(body) ? (body as z.output<T>) : parseInput(schema, body);
}
const quickRequests = new WeakMap<z.ZodType, QuickCheck>();

/**
 * The body-taking answers for arguments already checked against their request schema. The MCP
 * tools call these: the SDK checked the arguments at the edge with the same zod schema, so they are
 * not parsed a second time.
 */
export const checked = {
  /**
   * `textLength`: as for {@link validateManifest}; the caller bounded the nesting of that text, or
   * `proven`: {@link provenManifestArguments} proved the arguments (then only the rules run).
   */
  validateManifest: (args: ValidateManifestRequest, textLength?: number, proven = false): ValidationResult =>
    proven && textLength !== undefined && withinBoundsByLength(textLength)
      ? validateProvenManifest(args.manifest as CellManifest)
      : manifestWithin(args.manifest, textLength),
  validateEntity: (args: ValidateEntityRequest): ValidationResult => validateEntityCore(args.entity),
  validatePage: (args: ValidatePageRequest): ValidationResult => validatePageCore(args.page),
  normalizeManifest: (args: ValidateManifestRequest): NormalizeResult => normalizeManifestCore(args.manifest),
  recommend: (args: z.output<typeof RecommendInputSchema>) => recommendCore(args.goal),
  suggestPages: (args: z.output<typeof SuggestPagesInputSchema>) => suggestPagesCore(args.entities),
  suggestRelations: (args: z.output<typeof SuggestRelationsInputSchema>) => suggestRelationsCore(args.entities),
  explainErrors: (args: z.output<typeof ExplainErrorsInputSchema>) => explainErrorsCore(args.errors),
};

/**
 * The whole `{ manifest }` body as one compiled check that also bounds its nesting: a body it
 * proves is a well-formed request whose manifest is structurally valid, within the document
 * bounds, and nested no deeper than a client body may be. (The request schema itself types the
 * manifest as any object, since its problems are reported in the result, not refused.)
 */
let provenManifestBody: QuickCheck | undefined;

function provenManifestRequest(): QuickCheck {
  return (provenManifestBody ??= compileQuickCheck(z.object({ manifest: CellManifestSchema }), { maxDepth: MAX_JSON_DEPTH }));
}

let provenManifestArgs: QuickCheck | undefined;

/**
 * MCP `validate_manifest`'s proof of its arguments: the body check of {@link validateManifest}
 * with no other member beside `manifest`, so the arguments are exactly what the input schema
 * returns (its `manifest` member keeps every key).
 */
export function provenManifestArguments(): QuickCheck {
  return (provenManifestArgs ??= compileQuickCheck(z.object({ manifest: CellManifestSchema }).strict(), { maxDepth: MAX_JSON_DEPTH }));
}

/**
 * `POST /api/validate/manifest`, MCP `validate_manifest`. Body `{ manifest }`.
 *
 * @param textLength length of the client JSON text `body` was parsed from, when there was one: a
 *   text that short cannot exceed the document bounds, so their walk is skipped. Its nesting must
 *   be bounded already (`parseClientJson`), unless `boundDepth` is given.
 * @param boundDepth for a body parsed without its depth bound (`parseJsonText`): throws the 400
 *   for one nested too deep. Called unless the compiled check proves the body shallow, and valid,
 *   in which case only the semantic rules run.
 */
export function validateManifest(body: unknown, textLength?: number, boundDepth?: () => void): ValidationResult {
  if (boundDepth !== undefined) {
    const bounded = textLength !== undefined && withinBoundsByLength(textLength);
    if (bounded && provenManifestRequest()(body)) return validateProvenManifest((body as { manifest: CellManifest }).manifest);
    boundDepth();
  }
  return manifestWithin(validationRequest(ValidateManifestRequestSchema, body).manifest, textLength);
}

/** Validates `manifest`, skipping the walk of the document bounds when `textLength` proves them. */
function manifestWithin(manifest: unknown, textLength: number | undefined): ValidationResult {
  return textLength !== undefined && withinBoundsByLength(textLength) ? validateBoundedManifest(manifest) : validateManifestCore(manifest);
}

/** `POST /api/validate/entity`, MCP `validate_entity`. Body `{ entity }`. */
export function validateEntity(body: unknown): ValidationResult {
  return checked.validateEntity(validationRequest(ValidateEntityRequestSchema, body));
}

/** `POST /api/validate/page`, MCP `validate_page`. Body `{ page }`. */
export function validatePage(body: unknown): ValidationResult {
  return checked.validatePage(validationRequest(ValidatePageRequestSchema, body));
}

/** `POST /api/validate/normalize`, MCP `normalize_manifest`. Body `{ manifest }`. */
export function normalizeManifest(body: unknown): NormalizeResult {
  return checked.normalizeManifest(validationRequest(ValidateManifestRequestSchema, body));
}

/** `POST /api/validate/entity-document`: the body is the entity definition document itself. */
export function validateEntityDocument(body: unknown): ValidationResult {
  return validateEntityDocumentCore(parseInput(EntityDocumentRequestSchema, body));
}

// ---------------------------------------------------------------------------------------------
// Guidance (200, docs/decisions/A13.md–docs/decisions/A16.md)
// ---------------------------------------------------------------------------------------------

/** `POST /api/guidance/recommend`, MCP `recommend_manifest_structure`. Body `{ goal }`. */
export function recommend(body: unknown) {
  return checked.recommend(parseInput(RecommendInputSchema, body));
}

/** `POST /api/guidance/suggest-pages`, MCP `suggest_page_set_for_entities`. Body `{ entities: string[] }`. */
export function suggestPages(body: unknown) {
  return checked.suggestPages(parseInput(SuggestPagesInputSchema, body));
}

/** `POST /api/guidance/suggest-relations`, MCP `suggest_relations`. Body `{ entities: [{ key, fields }] }`. */
export function suggestRelations(body: unknown) {
  return checked.suggestRelations(parseInput(SuggestRelationsInputSchema, body));
}

/** `POST /api/guidance/explain-errors`, MCP `explain_validation_errors`. Body `{ errors: [{ field, message }] }`. */
export function explainErrors(body: unknown) {
  return checked.explainErrors(parseInput(ExplainErrorsInputSchema, body));
}
