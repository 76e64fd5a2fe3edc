/**
 * Schema descriptions served by `GET /api/schemas/*` and the MCP discovery tools (docs/contract-conventions.md "Schema
 * description shape", docs/decisions/A01.md, docs/decisions/A12.md), derived from the zod schemas and the semantic rule table,
 * plus memoised JSON Schema of the manifest and entity contracts.
 */
import { z } from 'zod';
import { CellgateError } from '../../errors.ts';
import {
  CAPABILITY_TYPES,
  CONTRACT_VERSION,
  CapabilityTypeSchema,
  CapabilityVariants,
  CellManifestSchema,
  CellSpecSchema,
  EntityDefinitionSchema,
  PAGE_TYPES,
  PageDefinitionSchema,
} from '../schema/index.ts';
import { allRules, capabilityGroup, ruleGroups, type AnyRule } from '../validate/rules/index.ts';
import { describeMember, describeShape } from './fields.ts';
import type {
  CapabilitySchemaDescription,
  CapabilityTypeInfo,
  EntitySchemaDescription,
  ManifestSchemaDescription,
  PageSchemaDescription,
  SchemaField,
} from './shapes.ts';

export * from './shapes.ts';

/** Values the `version` parameter of the schema endpoints accepts (docs/decisions/A01.md). */
export const SUPPORTED_SCHEMA_VERSIONS = ['latest', 'v1alpha1'] as const;

const sentences = (rules: readonly AnyRule[]): string[] => rules.map((rule) => rule.description);

/** Computes once, then hands each caller its own copy. */
function memo<T>(compute: () => T): () => T {
  let value: T | undefined;
  return () => structuredClone((value ??= compute()));
}

function unknownFilter(kind: string, value: string, valid: readonly string[]): CellgateError {
  const message = `Unknown ${kind} type: ${value}. Valid types: ${valid.join(', ')}`;
  return new CellgateError('VALIDATION_ERROR', message, { details: { fields: [{ path: 'type', message }] } });
}

/**
 * Accepts `undefined`, `""`, `latest` or `v1alpha1`; anything else throws a `VALIDATION_ERROR`
 * naming the supported values.
 *
 * @example
 * checkSchemaVersion('latest'); // ok
 * checkSchemaVersion('v9'); // throws CellgateError VALIDATION_ERROR (400)
 */
export function checkSchemaVersion(version?: string | null): void {
  if (version === undefined || version === null || version === '') return;
  if ((SUPPORTED_SCHEMA_VERSIONS as readonly string[]).includes(version)) return;
  const message = `Unsupported schema version: "${version}". Supported versions: ${SUPPORTED_SCHEMA_VERSIONS.join(', ')}`;
  throw new CellgateError('VALIDATION_ERROR', message, { details: { fields: [{ path: 'version', message }] } });
}

const manifestDescription = memo(
  (): ManifestSchemaDescription => ({
    name: 'CellManifestV1',
    version: CONTRACT_VERSION,
    fields: describeShape(CellManifestSchema.shape),
    semanticRules: sentences(allRules.filter((rule) => rule.scope === 'manifest')),
    notes: [
      'Produce manifests (data), not application code.',
      `Every manifest must conform to the canonical Cell contract (\`apiVersion: ${CONTRACT_VERSION}\`, \`kind: Cell\`).`,
      'Check every manifest you produce with validate_manifest (POST /api/validate/manifest); normalize_manifest fills defaults.',
    ],
    spec: describeShape(CellSpecSchema.shape),
  }),
);

/**
 * Description of CellManifestV1: root fields, `spec` fields, semantic rules and notes. Computed
 * once; each call returns a fresh copy.
 *
 * @example
 * describeManifestSchema().spec.map((f) => f.key); // ['mount', 'appShell', 'entities', 'pages', 'navigation', 'roles']
 */
export function describeManifestSchema(): ManifestSchemaDescription {
  return manifestDescription();
}

const entityDescription = memo(
  (): EntitySchemaDescription => ({
    name: 'EntityDefinition',
    version: CONTRACT_VERSION,
    fields: describeShape(EntityDefinitionSchema.shape),
    semanticRules: sentences(ruleGroups.entity),
  }),
);

/**
 * Description of EntityDefinition (manifest form): its 14 members and the entity and capability rules.
 *
 * @example
 * describeEntitySchema().fields.filter((f) => f.required).map((f) => f.key); // ['key', 'name', 'pluralName', 'fields']
 */
export function describeEntitySchema(): EntitySchemaDescription {
  return entityDescription();
}

const pageBase = memo(() => ({
  name: 'PageDefinition',
  version: CONTRACT_VERSION,
  fields: describeShape(PageDefinitionSchema.shape),
  semanticRules: sentences(ruleGroups.page),
}));

/**
 * Description of PageDefinition with every page type, or, given a known `type`, with that one as
 * `pageType`. An unknown type throws `VALIDATION_ERROR` listing the valid ones.
 *
 * @example
 * describePageSchema('dashboard').pageType; // { type: 'dashboard', entityRequired: false, description: '…' }
 */
export function describePageSchema(type?: string | null): PageSchemaDescription {
  const pageTypes = PAGE_TYPES.map(({ type, entityRequired, description }) => ({ type, entityRequired, description }));
  if (type === undefined || type === null || type === '') return { ...pageBase(), pageTypes };
  const pageType = pageTypes.find((entry) => entry.type === type);
  if (pageType === undefined)
    throw unknownFilter(
      'page',
      type,
      pageTypes.map((entry) => entry.type),
    );
  return { ...pageBase(), pageType };
}

/** Rows of the capability members: the shared ones, then each type-specific (conditional) one. */
function capabilityFields(): SchemaField[] {
  const [first] = CapabilityVariants;
  const { key, type: _type, transition: _transition, ...rest } = first.shape;
  const rows = [describeMember('key', key), describeMember('type', CapabilityTypeSchema, true), ...describeShape(rest)];
  for (const variant of CapabilityVariants) {
    for (const [member, schema] of Object.entries(variant.shape)) {
      if (member !== 'key' && member !== 'type' && !(member in rest)) rows.push(describeMember(member, schema, false));
    }
  }
  return rows;
}

const capabilityTypes = memo((): CapabilityTypeInfo[] =>
  CapabilityVariants.map((variant) => {
    const type = variant.shape.type.value;
    const requiredFields = Object.entries(variant.shape)
      .filter(([, schema]) => schema._zod.optin === undefined)
      .map(([key]) => key);
    return { type, description: CAPABILITY_TYPES[type], requiredFields };
  }),
);

const capabilityBase = memo(() => ({
  name: 'CapabilityDefinition',
  version: CONTRACT_VERSION,
  fields: capabilityFields(),
  semanticRules: sentences(capabilityGroup),
}));

/**
 * Description of CapabilityDefinition with every capability type, or, given a known `type`, with
 * that one as `capabilityType`. An unknown type throws `VALIDATION_ERROR` listing the valid ones.
 *
 * @example
 * describeCapabilitySchema('export').capabilityType?.requiredFields; // ['key', 'type', 'format']
 */
export function describeCapabilitySchema(type?: string | null): CapabilitySchemaDescription {
  const types = capabilityTypes();
  if (type === undefined || type === null || type === '') return { ...capabilityBase(), capabilityTypes: types };
  const capabilityType = types.find((entry) => entry.type === type);
  if (capabilityType === undefined)
    throw unknownFilter(
      'capability',
      type,
      types.map((entry) => entry.type),
    );
  return { ...capabilityBase(), capabilityType };
}

const jsonSchemaOf = (schema: z.ZodType) =>
  memo(() => z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);

/** JSON Schema (draft 2020-12, input form) of CellManifestV1; computed once. */
export const manifestJsonSchema = jsonSchemaOf(CellManifestSchema);
/** JSON Schema (draft 2020-12, input form) of EntityDefinition; computed once. */
export const entityJsonSchema = jsonSchemaOf(EntityDefinitionSchema);
