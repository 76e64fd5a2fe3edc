/**
 * How cellgate's build takes in the MCP server SDK (docs/decisions/B26.md): the parts of
 * `@modelcontextprotocol/server` and `@modelcontextprotocol/core` that the MCP endpoint imports
 * are bundled into the chunks only the MCP endpoint and `cellgate mcp` load (lazily), so an app
 * does not install the SDK (8.4 MB with its source maps). `zod`, which the SDK imports as
 * `zod/v4`, stays external: the SDK runs on the app's zod, the one cellgate's schemas use.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Options } from 'tsup';

/** The SDK packages bundled into dist (every subpath, `core/internal` included). */
export const MCP_SDK_PACKAGES = /^@modelcontextprotocol\/(server|core)(\/.*)?$/;

/**
 * Points the SDK's `@modelcontextprotocol/server/_shims` import at `build/mcp-sdk/shims.ts`. The
 * SDK picks that module by export condition at the app's run time; bundled, it would be picked
 * once here, and its Node variant imports `node:process` into a chunk Workers load.
 */
export function mcpSdkShims(root: string): NonNullable<Options['esbuildPlugins']>[number] {
  return {
    name: 'cellgate-mcp-sdk-shims',
    setup(build) {
      build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: resolve(root, 'build/mcp-sdk/shims.ts') }));
    },
  };
}

/**
 * Ships the licences of the bundled code in `dist/mcp-sdk/`: the SDK's own `LICENSE`, from the
 * installed package the build bundled (server and core carry the same text), and the licences of
 * the packages the SDK's build contains (`THIRD-PARTY-LICENSES.md`, kept beside this file).
 */
export function copyMcpSdkLicenses(root: string): void {
  const target = resolve(root, 'dist/mcp-sdk');
  mkdirSync(target, { recursive: true });
  copyFileSync(resolve(root, 'node_modules/@modelcontextprotocol/server/LICENSE'), resolve(target, 'LICENSE'));
  copyFileSync(resolve(root, 'build/mcp-sdk/THIRD-PARTY-LICENSES.md'), resolve(target, 'THIRD-PARTY-LICENSES.md'));
}
