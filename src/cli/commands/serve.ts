/**
 * `cellgate serve`: runs the reference host (contract API, docs, MCP, governed resources) on
 * node:http, exactly as `npm start` does in the repository. Flags override the environment.
 * `--entity <file>` (or the `entities` of `cellgate.config.ts`) serves the user's entity documents
 * instead of the demo ones. Flags override the configuration file, which overrides the environment.
 */
import { defineEntity } from '../../entity-document/index.ts';
import { ConfigurationError } from '../../errors.ts';
import { UsageError, numberFlag, parseCommandArgs, runCommand } from '../args.ts';
import { entityDocuments, loadConfig, type NamedDocument } from '../config.ts';
import { parseFramework, runFrameworkHost } from './serve-framework.ts';
import { missingDriver } from './storage-hints.ts';

/** Checks the entity documents to serve; a bad one is a one-line {@link UsageError}. */
function checkedDocuments(named: NamedDocument[]): unknown[] {
  return named.map(({ label, document }) => {
    try {
      defineEntity(document as Parameters<typeof defineEntity>[0]);
    } catch (error) {
      if (error instanceof ConfigurationError) throw new UsageError(`${label}: ${error.message} (run \`cellgate validate\` on the document for every error)`);
      throw error;
    }
    return document;
  });
}

const help = `Usage: cellgate serve [options]

Runs the reference host until SIGINT/SIGTERM.

Options:
  --port <n>           listen port, 0 = any free port (env PORT, default 3000)
  --host <address>     listen address (env HOST, default 127.0.0.1)
  --database-url <u>   memory:, sqlite:<file>, postgres://… (env DATABASE_URL, default sqlite:./.cellgate/dev.db)
  --framework <name>   node (default), express, fastify, hono or next: the same app mounted in that framework
  --entity <file>      serve this entity definition document (YAML or JSON) instead of the demo
                       entities; repeat for several
  --config <file>      configuration file (default: cellgate.config.ts, .mts, .js or .mjs in the
                       current directory, when there is one); flags override it
  -h, --help           show this help

Other settings come from the environment: CELLGATE_JWT_SECRET, CELLGATE_JWT_PUBLIC_KEY,
CELLGATE_JWKS_URL, CELLGATE_JWT_ISSUER, CELLGATE_JWT_AUDIENCE, CELLGATE_RATE_LIMIT.`;

/** Runs the reference host; resolves with its exit code after it stopped. */
export async function run(args: string[]): Promise<number> {
  return runCommand('serve', help, args, async () => {
    const { values } = parseCommandArgs(args, {
      port: { type: 'string' },
      host: { type: 'string' },
      'database-url': { type: 'string' },
      framework: { type: 'string' },
      entity: { type: 'string', multiple: true },
      config: { type: 'string' },
    });
    const loaded = await loadConfig(values.config);
    if (loaded) console.error(`cellgate serve: using ${loaded.file}`);
    const config = loaded?.config ?? {};
    const framework = parseFramework(values.framework ?? config.framework);
    const entities = checkedDocuments(await entityDocuments(values.entity ?? [], loaded));
    // Checked here, as every flag is, so a bad port is a usage error (exit 2), not a failed start.
    const port = numberFlag(values.port === undefined ? 'PORT' : '--port', values.port ?? config.port?.toString() ?? (process.env.PORT?.trim() || undefined), {
      min: 0,
      max: 65_535,
      integer: true,
      unit: 'the listen port; 0: any free port',
    })?.toString();
    const host = values.host ?? config.host;
    const databaseUrl = values['database-url'] ?? config.storage;
    const env = {
      ...process.env,
      ...(port !== undefined ? { PORT: port } : {}),
      ...(host !== undefined ? { HOST: host } : {}),
      ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}),
      ...(entities.length > 0 ? { CELLGATE_ENTITIES: JSON.stringify(entities) } : {}),
    };
    const hint = await missingDriver(env.DATABASE_URL);
    if (hint) {
      console.error(`cellgate serve: ${hint}`);
      return 1;
    }
    if (framework !== 'node') return runFrameworkHost(framework, env);
    const { runReferenceHost } = await import('../../host/run.ts');
    return runReferenceHost(env);
  });
}
