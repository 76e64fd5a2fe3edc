/**
 * What the HTTP benchmark scripts (`contract-http.ts`, `adapters.ts`, `validate-speed.ts`) share:
 * servers started in their own processes, autocannon driven from the script's process, server CPU
 * time read from /proc, and the median of alternating rounds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

/** The repository root, where server scripts are started from. */
export const repositoryRoot = resolve(import.meta.dirname, '../..');

/** Starts a TypeScript server script in its own process; resolves once it prints `listening on <url>`. */
export function startServer(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) done({ child, url: match[1]! });
    });
    child.once('exit', (code) => fail(new Error(`${args[0]} exited with ${code}: ${out}`)));
  });
}

/** The part of autocannon's result the scripts read (the package ships no type declarations). */
export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  errors: number;
  non2xx: number;
}

/** autocannon's programmatic entry. */
export const autocannon = createRequire(import.meta.url)('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After "pid (comm) ", utime and stime are fields 12 and 13 (0-based), in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The median (upper middle for an even count) of the per-round figures. */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
