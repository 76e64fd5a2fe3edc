/**
 * The root entry runs beyond Node: one smoke script per runtime (Bun, Deno, workerd through
 * miniflare) imports the built `dist/index.js`, drives the contract handler and a governed API on
 * the memory driver, and prints its results as one JSON line; each must pass every check.
 * Runtimes come from the dev dependencies (`bun`, `deno`, `miniflare`); miniflare needs Node 22,
 * fetched with `npx -y node@22` as the MCP conformance suite does.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from '../packaging/build.ts';

const run = promisify(execFile);
const bin = (name: string) => join(root, 'node_modules/.bin', name);

interface SmokeReport {
  runtime: string;
  results: Array<{ name: string; ok: boolean; got: unknown }>;
}

/** Every check of `checks.mjs`, for the file-system runtimes; workerd runs the same list. */
const CHECKS = 7;

beforeAll(ensureBuilt, 300_000);

/** Runs one smoke and answers its report, or why the runtime could not start (then the test skips). */
async function smoke(command: string, args: string[]): Promise<SmokeReport | { unavailable: string }> {
  try {
    await run(command, ['--version'], { cwd: root, timeout: 60_000 });
  } catch (error) {
    return { unavailable: `${command} does not start here: ${(error as Error).message.split('\n')[0]}` };
  }
  const { stdout } = await run(command, args, { cwd: root, timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as SmokeReport;
}

function expectAllPassed(report: SmokeReport, runtime: RegExp): void {
  expect(report.runtime).toMatch(runtime);
  expect(report.results).toHaveLength(CHECKS);
  expect(report.results.filter((result) => !result.ok)).toEqual([]);
}

describe('runtime smokes of the root entry', () => {
  it('Bun', async (context) => {
    const report = await smoke(bin('bun'), ['test/runtimes/bun.mjs']);
    if ('unavailable' in report) return context.skip(report.unavailable);
    expectAllPassed(report, /^bun \d/);
  }, 60_000);

  it('Deno', async (context) => {
    const report = await smoke(bin('deno'), ['run', '--allow-read', 'test/runtimes/deno.mjs']);
    if ('unavailable' in report) return context.skip(report.unavailable);
    expectAllPassed(report, /^deno \d/);
  }, 60_000);

  it('workerd (miniflare)', async (context) => {
    let node22: string;
    try {
      node22 = (await run('npx', ['-y', 'node@22', '-p', 'process.execPath'], { timeout: 180_000 })).stdout.trim();
    } catch (error) {
      return context.skip(`Node 22 (needed by miniflare 4) could not be fetched: ${(error as Error).message.split('\n')[0]}`);
    }
    const report = await smoke(node22, ['test/runtimes/workerd.mjs']);
    if ('unavailable' in report) return context.skip(report.unavailable);
    expectAllPassed(report, /^workerd$/);
  }, 240_000);
});
