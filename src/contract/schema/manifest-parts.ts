/** Small top-level parts of a Cell manifest: metadata, mount and roles. */
import { z } from 'zod';
import { list, nonEmptyString } from './common.ts';

/** `metadata` of a Cell (strict). `key` must be snake_case (a semantic rule). */
export const CellMetadataSchema = z
  .strictObject({
    key: nonEmptyString().describe('Unique snake_case identifier of the cell, e.g. `crm`.'),
    name: nonEmptyString().describe('Display name of the cell.'),
    version: nonEmptyString().describe('Version of this manifest, e.g. `1.0.0`.'),
    description: nonEmptyString().optional().describe('What the cell is for.'),
  })
  .meta({ id: 'CellMetadata', description: 'Identity of the cell: key, name, version, description.' });

/** `spec.mount` (strict): where the cell is mounted and which page opens first. */
export const CellMountSchema = z
  .strictObject({
    mountPath: nonEmptyString().describe('URL path the cell is mounted at; starts with `/`.'),
    landingPage: nonEmptyString().describe('Key of the page shown first; must be a page of `spec.pages`.'),
    title: nonEmptyString().optional().describe('Title shown by the app shell.'),
  })
  .meta({ id: 'CellMountDefinition', description: 'App shell mount configuration: mountPath and landingPage.' });

/** One role (strict) with the permission scopes it grants. */
export const RoleDefinitionSchema = z
  .strictObject({
    key: nonEmptyString().describe('Unique role key.'),
    name: nonEmptyString().describe('Display name of the role.'),
    description: z.string().optional().describe('What the role is for.'),
    scopes: list(nonEmptyString()).min(1).describe('Permission scopes granted by the role; unique.'),
    identityMappings: list(nonEmptyString()).optional().describe('Identity-provider groups mapped to this role; unique.'),
  })
  .meta({ id: 'RoleDefinition', description: 'Role-based access: a key, a name and the scopes it grants.' });

/** Inferred type of `metadata`. */
export type CellMetadata = z.infer<typeof CellMetadataSchema>;
/** Inferred type of `spec.mount`. */
export type CellMount = z.infer<typeof CellMountSchema>;
/** Inferred type of one role. */
export type RoleDefinition = z.infer<typeof RoleDefinitionSchema>;
