/**
 * The lifecycle every framework host shares (the same as the node:http reference host): read the
 * environment, build the reference app, mount it in the framework, listen, print
 * `listening on http://HOST:PORT` and the banner, and on SIGINT/SIGTERM stop accepting, finish
 * in-flight requests and close storage. A bad setting prints one line and exits 1.
 */
import type { AddressInfo } from 'node:net';
import type { FetchHandler } from 'cellgate';
import { createReferenceApp } from './app.ts';
import { loadConfig } from './config.ts';

/** A framework server with the cellgate handler mounted. */
export interface MountedServer {
  /** Starts listening; resolves with the bound address. */
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Mounts the handler in one framework. */
export type MountHandler = (handler: FetchHandler) => MountedServer | Promise<MountedServer>;

function urlOf(address: AddressInfo): string {
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * Runs a host until a signal; resolves with the process exit code.
 *
 * @example
 * process.exitCode = await runHost('express host', await frameworkMount('express'));
 */
export async function runHost(name: string, mount: MountHandler, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const oneLine = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause)).split('\n', 1)[0];
  let stop: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => (stop = resolve));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  const forget = () => process.off('SIGINT', stop).off('SIGTERM', stop);

  let app: Awaited<ReturnType<typeof createReferenceApp>> | undefined;
  let server: MountedServer;
  let address: AddressInfo;
  try {
    const config = loadConfig(env);
    app = await createReferenceApp(config);
    server = await mount(app.handler);
    address = await server.listen(config.port, config.host);
  } catch (cause) {
    forget();
    await app?.close().catch(() => undefined);
    console.error(`${name}: ${oneLine(cause)}`);
    return 1;
  }
  console.log(`listening on ${urlOf(address)}`);
  for (const line of app.banner) console.log(`  ${line}`);

  const signal = await stopped;
  forget();
  console.log(`${signal}: finishing in-flight requests`);
  await server.close();
  await app.close();
  console.log('stopped');
  return 0;
}

/** A {@link MountedServer} over a `node:http` server (Express, Hono on @hono/node-server). */
export function nodeServer(server: import('node:http').Server): MountedServer {
  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve(server.address() as AddressInfo));
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      }),
  };
}

/**
 * The body of a host's own 404 for paths nothing serves: the same `{ error, message }` envelope
 * cellgate answers with, so a client sees one error format (not a framework's HTML page).
 */
export function notFoundEnvelope(method: string, path: string): { error: 'NOT_FOUND'; message: string } {
  return { error: 'NOT_FOUND', message: `No route matches ${method} ${path}.` };
}
