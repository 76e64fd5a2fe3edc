/**
 * `cellgate.config.ts`: the optional project file of the `cellgate` command (`serve`, `migrate`).
 * It default-exports `defineConfig({ ... })`; command-line flags override what it sets, and what it
 * sets overrides the environment (the file is code: read `process.env` in it to prefer the
 * environment). This module is runtime-neutral: it only declares the shape; the command loads the
 * file (docs/cli.md#configuration-file).
 */
import { z } from 'zod';
import type { EntityDocumentInput } from '../entity-document/index.ts';

/** The frameworks `cellgate serve` can mount the app in (`--framework`). */
export const CONFIG_FRAMEWORKS = ['node', 'express', 'fastify', 'hono', 'next'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The configuration file's shape, checked when the command loads it: an unknown key (a typo) or a
 * wrong type is a one-line error naming the path. Entity documents themselves are checked by the
 * command with the entity rules (one error message per document, as for `--entity`).
 */
export const CellgateConfigSchema = z.strictObject({
  entities: z
    .array(
      z.custom<string | EntityDocumentInput>((value) => (typeof value === 'string' && value !== '') || isRecord(value), {
        error: 'Expected a file path or an entity definition document',
      }),
    )
    .optional()
    .describe(
      'Entity definition documents to serve and migrate instead of the demo ones: a YAML or JSON file path (relative to the configuration file) or the document itself (`defineEntity(...)` or a plain object).',
    ),
  storage: z.string().min(1).optional().describe('Storage URL: `memory:`, `sqlite:<file>` or `postgres://…` (as `--database-url` / `DATABASE_URL`).'),
  port: z.number().int().min(0).max(65_535).optional().describe('`cellgate serve` listen port; 0 = any free port (as `--port` / `PORT`).'),
  host: z.string().min(1).optional().describe('`cellgate serve` listen address (as `--host` / `HOST`).'),
  framework: z.enum(CONFIG_FRAMEWORKS).optional().describe('`cellgate serve` framework host (as `--framework`).'),
});

/** What `cellgate.config.ts` default-exports (see {@link defineConfig}). */
export type CellgateConfig = z.input<typeof CellgateConfigSchema>;

/**
 * Declares the configuration of the `cellgate` command, typed. Returns its argument unchanged.
 *
 * @example
 * // cellgate.config.ts
 * import { defineConfig } from 'cellgate';
 *
 * export default defineConfig({
 *   entities: ['./entities/task.entity.yaml'],
 *   storage: process.env.DATABASE_URL ?? 'sqlite:./.cellgate/dev.db',
 *   port: 3000,
 * });
 */
export function defineConfig(config: CellgateConfig): CellgateConfig {
  return config;
}
