/**
 * `cellgate mcp`: serves the 19 MCP tools and 5 resources over stdio for a local agent
 * (docs/decisions/A19.md). With `--project <dir>` the server runs in local mode: custom primitives are
 * loaded from the folder and `scaffold_primitive` writes its files inside it.
 */
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import { parseCommandArgs, runCommand, UsageError } from '../args.ts';

const help = `Usage: cellgate mcp [--project <dir>]

Serves the cellgate MCP tools and resources over stdio (JSON-RPC on stdin/stdout).

Options:
  --project <dir>  local mode: load custom primitives from <dir>/primitives.yaml and let
                   scaffold_primitive write new primitive files inside <dir> (never outside)
  -h, --help       show this help

Client configuration (Claude Desktop, Cursor, …):
  {"mcpServers":{"cellgate":{"command":"npx","args":["cellgate","mcp","--project","."]}}}`;

/** Runs the stdio server until the client closes stdin. */
export async function run(args: string[]): Promise<number> {
  return runCommand('mcp', help, args, async () => {
    const { values } = parseCommandArgs(args, { project: { type: 'string' } });
    let projectDir: string | undefined;
    if (values.project !== undefined) {
      projectDir = resolve(values.project);
      if (!statSync(projectDir, { throwIfNoEntry: false })?.isDirectory()) {
        throw new UsageError(`--project: ${projectDir} is not a folder`);
      }
    }
    // Loaded here, after argument checks, so `--help` stays instant.
    const [{ createContractContext }, { serveStdio }, { nodeProjectFolder }] = await Promise.all([
      import('../../contract/context.ts'),
      import('../../contract/mcp/stdio.ts'),
      import('../../node/index.ts'),
    ]);
    const context = createContractContext(projectDir === undefined ? {} : { projectFolder: nodeProjectFolder(projectDir) }, '--project');
    console.error(`cellgate mcp: serving on stdio${projectDir ? ` (project ${projectDir})` : ''}`);
    await serveStdio(context);
    return 0;
  });
}
