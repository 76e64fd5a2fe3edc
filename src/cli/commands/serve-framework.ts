/**
 * `cellgate serve --framework <name>`: which framework host serves the reference app. `node` is the
 * node:http reference host itself; the others are the framework hosts of `cellgate/host/frameworks`
 * (the same hosts as `examples/<name>-host`), each mounting the same app through its adapter and
 * sharing the host lifecycle (same environment, same
 * `listening on http://HOST:PORT` line, same clean stop on SIGINT/SIGTERM).
 */
import { CONFIG_FRAMEWORKS } from '../../config/index.ts';
import { UsageError } from '../args.ts';

/** The frameworks `--framework` (and the configuration's `framework`) accepts. */
export const FRAMEWORKS = CONFIG_FRAMEWORKS;

/** A framework name. */
export type Framework = (typeof FRAMEWORKS)[number];

/** Checks a `--framework` value; a {@link UsageError} (exit 2) names the accepted ones. */
export function parseFramework(value: string | undefined): Framework {
  if (value === undefined) return 'node';
  if ((FRAMEWORKS as readonly string[]).includes(value)) return value as Framework;
  throw new UsageError(`--framework must be one of ${FRAMEWORKS.join(', ')}; got "${value}".`);
}

/** Runs the host of a framework other than `node` until a signal; resolves with the exit code. */
export async function runFrameworkHost(framework: Exclude<Framework, 'node'>, env: NodeJS.ProcessEnv): Promise<number> {
  const [{ runHost }, { frameworkMount }] = await Promise.all([import('../../host/lifecycle.ts'), import('../../host/frameworks/index.ts')]);
  return runHost(`${framework} host`, await frameworkMount(framework), env);
}
