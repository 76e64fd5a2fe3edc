/** zod schemas of the schema descriptions themselves (REST responses, MCP output schemas). */
import { z } from 'zod';

/** One member of a described shape. */
export const SchemaFieldSchema = z
  .object({
    key: z.string().describe('Member name.'),
    type: z.string().describe('Type, e.g. `string`, `EntityDefinition[]`, `literal("Cell")`.'),
    required: z.boolean().describe('Whether the member must be present (conditional members are `false`).'),
    description: z.string().describe('What the member means.'),
  })
  .meta({ id: 'SchemaField' });

const base = {
  name: z.string().describe('Name of the described shape, e.g. `CellManifestV1`.'),
  version: z.string().describe('Contract version, `platform/v1alpha1`.'),
  fields: z.array(SchemaFieldSchema).describe('Members of the shape.'),
  semanticRules: z.array(z.string()).describe('Rules checked beyond the structure.'),
};

/** A schema description: `{ name, version, fields, semanticRules }`. */
export const SchemaDescriptionSchema = z.object(base).meta({ id: 'SchemaDescription' });

/** Description of CellManifestV1: adds `notes` and `spec` (the members of `spec`). */
export const ManifestSchemaDescriptionSchema = z
  .object({
    ...base,
    notes: z.array(z.string()).describe('Guidance for producing manifests.'),
    spec: z.array(SchemaFieldSchema).describe('Members of `spec`.'),
  })
  .meta({ id: 'ManifestSchemaDescription' });

/** Description of EntityDefinition. */
export const EntitySchemaDescriptionSchema = z.object(base).meta({ id: 'EntitySchemaDescription' });

/** One page type. */
export const PageTypeInfoSchema = z
  .object({
    type: z.string().describe('Page type.'),
    entityRequired: z.boolean().describe('Whether a page of this type names an `entity`.'),
    description: z.string(),
  })
  .meta({ id: 'PageTypeInfo' });

/** Description of PageDefinition: `pageTypes` unfiltered, or the one `pageType` asked for. */
export const PageSchemaDescriptionSchema = z
  .object({
    ...base,
    pageTypes: z.array(PageTypeInfoSchema).optional().describe('Every page type (no `type` filter).'),
    pageType: PageTypeInfoSchema.optional().describe('The page type asked for (with a `type` filter).'),
  })
  .meta({ id: 'PageSchemaDescription' });

/** One capability type. */
export const CapabilityTypeInfoSchema = z
  .object({
    type: z.string().describe('Capability type.'),
    description: z.string(),
    requiredFields: z.array(z.string()).describe('Members a capability of this type must have.'),
  })
  .meta({ id: 'CapabilityTypeInfo' });

/** Description of CapabilityDefinition: `capabilityTypes` unfiltered, or the one `capabilityType` asked for. */
export const CapabilitySchemaDescriptionSchema = z
  .object({
    ...base,
    capabilityTypes: z.array(CapabilityTypeInfoSchema).optional().describe('Every capability type (no `type` filter).'),
    capabilityType: CapabilityTypeInfoSchema.optional().describe('The capability type asked for (with a `type` filter).'),
  })
  .meta({ id: 'CapabilitySchemaDescription' });

/** One described member. */
export type SchemaField = z.infer<typeof SchemaFieldSchema>;
/** A schema description. */
export type SchemaDescription = z.infer<typeof SchemaDescriptionSchema>;
/** The manifest schema description. */
export type ManifestSchemaDescription = z.infer<typeof ManifestSchemaDescriptionSchema>;
/** The entity schema description. */
export type EntitySchemaDescription = z.infer<typeof EntitySchemaDescriptionSchema>;
/** One page type. */
export type PageTypeInfo = z.infer<typeof PageTypeInfoSchema>;
/** The page schema description. */
export type PageSchemaDescription = z.infer<typeof PageSchemaDescriptionSchema>;
/** One capability type. */
export type CapabilityTypeInfo = z.infer<typeof CapabilityTypeInfoSchema>;
/** The capability schema description. */
export type CapabilitySchemaDescription = z.infer<typeof CapabilitySchemaDescriptionSchema>;
