/**
 * The `primitives.yaml` file of a project folder: which custom primitives exist and where their
 * contract files are. Pure (no file access) so it can be reused by the loader and the scaffold.
 */
import { stringify } from 'yaml';
import { z } from 'zod';
import { PrimitiveKeySchema, SemverSchema } from './schemas.ts';

/** Name of the registry file at the root of a project folder. */
export const PROJECT_CONFIG_FILE = 'primitives.yaml';

/** One registered primitive: its key, version and contract file (relative to the project folder). */
export const ProjectPrimitiveSchema = z.strictObject({
  key: PrimitiveKeySchema,
  version: SemverSchema,
  contract: z.string().min(1).describe('Contract file, relative to the project folder.'),
});

/** The whole `primitives.yaml` document. */
export const ProjectConfigSchema = z.strictObject({
  apiVersion: z.literal('platform/v1alpha1'),
  kind: z.literal('PrimitiveConfig'),
  primitives: z.array(ProjectPrimitiveSchema).nullish().describe('An empty `primitives:` reads as no primitives.'),
});

/** A parsed `primitives.yaml`, with `primitives` always a list. */
export type ProjectConfig = Omit<z.infer<typeof ProjectConfigSchema>, 'primitives'> & { primitives: ProjectPrimitive[] };
/** One entry of `primitives.yaml`. */
export type ProjectPrimitive = z.infer<typeof ProjectPrimitiveSchema>;

/** An empty registry, the starting point when a project folder has no `primitives.yaml` yet. */
export function emptyProjectConfig(): ProjectConfig {
  return { apiVersion: 'platform/v1alpha1', kind: 'PrimitiveConfig', primitives: [] };
}

/** The YAML text of a registry file. */
export function renderProjectConfig(config: ProjectConfig): string {
  return `# Custom UI primitives of this project, read by cellgate at start-up.\n${stringify(config)}`;
}
