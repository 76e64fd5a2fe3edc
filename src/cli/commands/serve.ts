/**
 * `cellgate serve`: runs the reference host (contract API, docs, MCP, governed resources) on
 * node:http, exactly as `npm start` does in the repository. Flags override the environment.
 * `--entity <file>` serves the user's entity documents instead of the demo ones.
 */
import { defineEntity } from '../../entity-document/index.ts';
import { ConfigurationError } from '../../errors.ts';
import { UsageError, parseCommandArgs, readDocumentFile, runCommand } from '../args.ts';
import { parseFramework, runFrameworkHost } from './serve-framework.ts';
import { missingDriver } from './storage-hints.ts';

/** Reads and checks the `--entity` documents; a bad one is a one-line {@link UsageError}. */
async function entityDocuments(files: string[]): Promise<unknown[]> {
  const documents: unknown[] = [];
  for (const file of files) {
    const document = await readDocumentFile(file);
    try {
      defineEntity(document as Parameters<typeof defineEntity>[0]);
    } catch (error) {
      if (error instanceof ConfigurationError) throw new UsageError(`${file}: ${error.message} (run \`cellgate validate ${file}\` for every error)`);
      throw error;
    }
    documents.push(document);
  }
  return documents;
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
    });
    const framework = parseFramework(values.framework);
    const entities = await entityDocuments(values.entity ?? []);
    const env = {
      ...process.env,
      ...(values.port !== undefined ? { PORT: values.port } : {}),
      ...(values.host !== undefined ? { HOST: values.host } : {}),
      ...(values['database-url'] !== undefined ? { DATABASE_URL: values['database-url'] } : {}),
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
