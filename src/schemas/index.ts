/**
 * `cellgate/schemas`: the zod schemas of the package, one per shape, for apps that validate or
 * describe the same documents themselves (the Cell manifest contract, the primitive catalog,
 * examples, guidance, entity definition documents, token claims), with the vocabularies they
 * enumerate and the schema descriptions the `/api/schema` routes serve. The root entry `cellgate`
 * keeps the factories, errors and types apps start from (docs/decisions/B39.md). Runtime-neutral.
 */
export * from '../contract/schema/index.ts';
export * from '../contract/describe/index.ts';
export * from '../contract/catalog/schemas.ts';
export * from '../contract/guidance/schemas.ts';
export { ExampleContentSchema, ExampleEntrySchema, ExampleListSchema, type ExampleContent, type ExampleEntry } from '../contract/examples/catalog.ts';
export { DataBlockSchema, EntityDocumentSchema, FieldDescriptorSchema, FieldPermissionsSchema } from '../entity-document/index.ts';
export { TokenClaimsSchema, type TokenClaims } from '../governed/auth/claims.ts';
