/**
 * The official MCP client (`@modelcontextprotocol/sdk` 1.x), for the checks that call an MCP
 * endpoint the way agents do: the adapter conformance suite and the hosts' smoke checks. It is an
 * optional peer dependency (docs/dependencies.md): the SDK brings Express, Hono and their
 * dependencies, which no app needs to serve cellgate, so it loads only when such a check runs,
 * and a missing package is a {@link ConfigurationError} that says what to install.
 */
import { ConfigurationError } from '../errors.ts';

/** The peer package and the range cellgate is tested with. */
export const MCP_CLIENT_PACKAGE = '@modelcontextprotocol/sdk';

/** What a check needs of a connected client. */
export interface McpTestClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(call: { name: string; arguments: Record<string, unknown> }): Promise<{ [member: string]: unknown; isError?: unknown; content?: unknown }>;
  close(): Promise<void>;
}

function missing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * Connects the official client over Streamable HTTP to `url`. `caller` names the check, for the
 * error when the SDK is not installed.
 *
 * @example
 * const client = await connectMcpClient(new URL('http://127.0.0.1:3000/mcp'), 'my-smoke', 'runSmoke');
 * try {
 *   console.log((await client.listTools()).tools.length);
 * } finally {
 *   await client.close();
 * }
 */
export async function connectMcpClient(url: URL, name: string, caller: string): Promise<McpTestClient> {
  let sdk: [typeof import('@modelcontextprotocol/sdk/client/index.js'), typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')];
  try {
    // Two specifiers of the package; loaded only now, so an app without the SDK never loads it.
    sdk = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]);
  } catch (error) {
    if (!missing(error)) throw error;
    throw new ConfigurationError(
      caller,
      `calls MCP with the official client, ${MCP_CLIENT_PACKAGE} (an optional peer dependency of cellgate), which is not installed: ` +
        `run \`npm install --save-dev ${MCP_CLIENT_PACKAGE}\``,
    );
  }
  const [{ Client }, { StreamableHTTPClientTransport }] = sdk;
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}
