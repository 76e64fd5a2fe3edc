/**
 * The root entry is runtime-neutral: esbuild bundles the built `dist/index.js` for
 * `platform: 'neutral'` with nothing external, dependencies included, and every import (static or
 * dynamic) must resolve without a Node built-in. Node-only parts live in `cellgate/node` and the
 * adapter and driver subpaths.
 */
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build, type Message } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './build.ts';

beforeAll(ensureBuilt, 300_000);

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Bundles one entry for a neutral platform; answers the inputs that went in and the errors. */
async function bundleNeutral(entry: string): Promise<{ inputs: string[]; errors: Message[]; bytes: number }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'esm',
    // What a Worker bundler (wrangler) resolves with; `neutral` alone picks no `main` field. The
    // `workerd` condition is what a Worker resolves with (the MCP server SDK, bundled into dist,
    // no longer picks its runtime shim by condition: docs/decisions/B26.md).
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'import', 'default'],
    metafile: true,
    logLevel: 'silent',
    external: [],
  }).catch((error: { errors?: Message[] }) => ({ errors: error.errors ?? [], metafile: undefined, outputFiles: [] }));
  return {
    inputs: Object.keys(result.metafile?.inputs ?? {}),
    errors: result.errors,
    bytes: result.outputFiles?.[0]?.contents.length ?? 0,
  };
}

describe('runtime neutrality of the root entry', () => {
  it('dist/index.js bundles for a neutral platform with no externals and no Node built-in', async () => {
    const { inputs, errors, bytes } = await bundleNeutral(join(root, 'dist/index.js'));
    expect(errors.map((error) => `${error.text} (${error.location?.file ?? '?'})`)).toEqual([]);
    expect(inputs.filter((input) => builtins.has(input))).toEqual([]);
    // The bundle really holds the package and its dependencies (the MCP chunk, with the SDK built
    // into it, loads lazily but is bundled too); the SDK is not a dependency any more.
    expect(inputs.some((input) => input.includes('node_modules/zod/'))).toBe(true);
    expect(inputs.some((input) => input.includes('node_modules/@modelcontextprotocol/'))).toBe(false);
    expect(bytes).toBeGreaterThan(1_000_000);
  }, 120_000);

  it('the check catches a Node built-in: cellgate/node does not bundle for a neutral platform', async () => {
    const { errors } = await bundleNeutral(join(root, 'dist/node.js'));
    expect(errors.map((error) => error.text).join('\n')).toMatch(/Could not resolve "node:(fs\/promises|path)"/);
  }, 120_000);
});
