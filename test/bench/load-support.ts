/**
 * What the HTTP benchmark scripts (`contract-http.ts`, `adapters.ts`) share: autocannon driven
 * from the script's process, server CPU time read from /proc, and the median of alternating rounds.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

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
