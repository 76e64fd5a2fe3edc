/** `CellManifestV1`: the root document and its `spec`. */
import { z } from 'zod';
import { CONTRACT_VERSION, list } from './common.ts';
import { AppShellDefinitionSchema } from './app-shell.ts';
import { CellMetadataSchema, CellMountSchema, RoleDefinitionSchema } from './manifest-parts.ts';
import { EntityDefinitionSchema } from './entity.ts';
import { PageDefinitionSchema } from './page.ts';
import { NavigationDefinitionSchema } from './navigation.ts';

/** `spec` of a Cell (strict). */
export const CellSpecSchema = z
  .strictObject({
    mount: CellMountSchema.describe('App shell mount configuration.'),
    appShell: AppShellDefinitionSchema.optional().describe('App shell customization.'),
    entities: list(EntityDefinitionSchema).optional().describe('Entities with fields, relations, lifecycle, capabilities.'),
    pages: list(PageDefinitionSchema).optional().describe('Pages.'),
    navigation: NavigationDefinitionSchema.optional().describe('Sidebar structure made of pages and groups.'),
    roles: list(RoleDefinitionSchema).optional().describe('Role-based access with scopes.'),
  })
  .meta({ id: 'CellSpec', description: 'Contents of the cell: mount, entities, pages, navigation, roles.' });

/** `CellManifestV1` (strict). */
export const CellManifestSchema = z
  .strictObject({
    apiVersion: z.literal(CONTRACT_VERSION).describe(`Contract version; always \`${CONTRACT_VERSION}\`.`),
    kind: z.literal('Cell').describe('Document kind; always `Cell`.'),
    metadata: CellMetadataSchema.describe('Cell identity: key, name, version, description.'),
    spec: CellSpecSchema.describe('Cell contents.'),
  })
  .meta({ id: 'CellManifestV1', description: 'A Cell manifest: one application cell with its mount, entities, pages, navigation and roles.' });

/** Inferred type of a parsed manifest (defaults filled). */
export type CellManifest = z.infer<typeof CellManifestSchema>;
/** Input type of a manifest (what authors write). */
export type CellManifestInput = z.input<typeof CellManifestSchema>;
/** Inferred type of `spec`. */
export type CellSpec = z.infer<typeof CellSpecSchema>;
