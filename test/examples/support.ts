/** Helpers of the example-host tests: start a host process, wait for its URL, run a smoke script. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;
/**
 * Hosts run as one process (`node --import tsx`), not under the tsx command: the command is a
 * second process that relays signals, and on a loaded machine its relay could lose the race with
 * our SIGTERM (the host then died with 143 instead of stopping cleanly).
 */
const hostCommand = (entry: string, args: string[]): [string, string[]] => [process.execPath, ['--import', 'tsx', entry, ...args]];
export const SECRET = 'example-hosts-secret-0123456789abcdef01';

/** Starts a host; resolves with its URL once it printed the listening line. */
export async function startHost(
  entry: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn(...hostCommand(entry, args), {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'memory:', CELLGATE_JWT_SECRET: SECRET, NEXT_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before listening:\n${output}`)));
  });
  return { url, child, output: () => output };
}

/** Runs a smoke script against `url`; resolves with its exit code and output. */
export async function runSmoke(script: string, url: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(tsx, [script, url], { cwd: root, env: { ...process.env, CELLGATE_JWT_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}
