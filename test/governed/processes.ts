/** Child processes of the governed tests: the reference host and the `cellgate` command, run with tsx. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;

/** A running reference host. */
export interface Host {
  url: string;
  /** stdout lines so far (the banner). */
  lines: string[];
  stop(): Promise<number | null>;
}

function baseEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const key of Object.keys(clean)) if (key.startsWith('CELLGATE_') || key === 'DATABASE_URL') delete clean[key];
  return { ...clean, ...env };
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Starts `examples/reference-host/main.ts` on a free port and waits for `listening on http://…`
 * and then for a banner line matching `ready` (the governed lines by default).
 */
export function startHost(env: Record<string, string> = {}, ready: RegExp = /^\s+metrics\s/): Promise<Host> {
  // One process (`node --import tsx`): the tsx command's signal relay can SIGKILL a host under load (exit 143).
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/reference-host/main.ts'], {
    cwd: root,
    env: baseEnv({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'memory:', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts);
      const listening = lines.map((line) => /listening on (http:\/\/\S+)/.exec(line)).find(Boolean);
      if (listening && lines.some((line) => ready.test(line))) {
        resolve({
          url: listening[1]!,
          lines,
          stop: async () => {
            child.kill('SIGTERM');
            return exited(child);
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`reference host exited with ${code}: ${stderr.trim()}`)));
  });
}

/** Runs a command to completion. */
export function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(tsx, args, { cwd: root, env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return exited(child).then((code) => ({ code, stdout, stderr }));
}
