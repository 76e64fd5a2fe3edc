/**
 * `cellgate serve`: runs the reference host (contract API, docs, MCP, demo governed resources) on
 * node:http, exactly as `npm start` does in the repository. Flags override the environment.
 */
import { parseCommandArgs, runCommand } from '../args.ts';
import { parseFramework, runFrameworkHost } from './serve-framework.ts';

const help = `Usage: cellgate serve [options]

Runs the reference host until SIGINT/SIGTERM.

Options:
  --port <n>           listen port, 0 = any free port (env PORT, default 3000)
  --host <address>     listen address (env HOST, default 127.0.0.1)
  --database-url <u>   memory:, sqlite:<file>, postgres://… (env DATABASE_URL, default sqlite:./.cellgate/dev.db)
  --framework <name>   node (default), express, fastify, hono or next: the same app mounted in that framework
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
    });
    const framework = parseFramework(values.framework);
    const env = {
      ...process.env,
      ...(values.port !== undefined ? { PORT: values.port } : {}),
      ...(values.host !== undefined ? { HOST: values.host } : {}),
      ...(values['database-url'] !== undefined ? { DATABASE_URL: values['database-url'] } : {}),
    };
    if (framework !== 'node') return runFrameworkHost(framework, env);
    const { runReferenceHost } = await import('../../../examples/reference-host/run.ts');
    return runReferenceHost(env);
  });
}
