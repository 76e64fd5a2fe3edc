/**
 * The subcommands of `cellgate`. Each module exports `run(args: string[]): Promise<number>`
 * (the exit code) and prints its own `--help`.
 */

/** A subcommand module. */
export interface CommandModule {
  run(args: string[]): Promise<number>;
}

/** Subcommands by name, with the one-line summary shown by `cellgate --help`. */
export const commands = {
  serve: { summary: 'run the reference host (contract API, MCP, demo governed resources)', load: () => import('./serve.ts') },
  validate: { summary: 'validate a manifest or entity document (YAML or JSON file)', load: () => import('./validate.ts') },
  migrate: { summary: 'run the storage migrations for DATABASE_URL', load: () => import('./migrate.ts') },
  purge: { summary: 'apply retention and purge soft-deleted records (docs/lifecycle.md)', load: () => import('./purge.ts') },
  token: { summary: 'print a signed development token', load: () => import('./token.ts') },
  erase: { summary: "erase one record's personal data (GDPR) from its state, versions, audit and events", load: () => import('./erase.ts') },
  mcp: { summary: 'serve the MCP tools and resources over stdio', load: () => import('./mcp.ts') },
  audit: { summary: 'audit export --from --to: write audit records of a tenant as NDJSON', load: () => import('./audit.ts') },
  verify: { summary: "check a tenant's verifiable audit log against kept checkpoints (0 verified, 2 tampered)", load: () => import('./verify.ts') },
} satisfies Record<string, { summary: string; load: () => Promise<CommandModule> }>;

/** A subcommand name. */
export type CommandName = keyof typeof commands;
