/**
 * Runs the reference host on `node:http` until SIGINT/SIGTERM: prints `listening on
 * http://HOST:PORT` and the banner, then on a signal stops accepting connections, lets in-flight
 * requests finish, closes storage and resolves 0. A bad setting or a failed listen prints one
 * line on stderr and resolves 1. Shared by `npm start` (examples/reference-host/main.ts) and `cellgate serve`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'cellgate/adapters/node';
import { createReferenceApp, type ReferenceApp } from './app.ts';
import { loadConfig, type ReferenceConfig } from './config.ts';

/** How long in-flight requests may take to finish after a signal before their sockets are cut. */
const DRAIN_TIMEOUT_MS = 10_000;

/** Output of the host; defaults to the console. */
export interface RunOptions {
  log?: (line: string) => void;
  error?: (line: string) => void;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Runs the host for `env`; resolves with the process exit code once it has stopped. */
export async function runReferenceHost(env: Readonly<Record<string, string | undefined>> = process.env, options: RunOptions = {}): Promise<number> {
  const log = options.log ?? ((line: string) => console.log(line));
  const error = options.error ?? ((line: string) => console.error(line));
  const oneLine = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause)).split('\n', 1)[0];

  // Listen for signals from the start, so a signal during start-up also ends in a clean stop.
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const forgetSignals = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };

  let config: ReferenceConfig;
  let app: ReferenceApp;
  try {
    config = loadConfig(env);
    app = await createReferenceApp(config);
  } catch (cause) {
    forgetSignals();
    error(`reference host: ${oneLine(cause)}`);
    return 1;
  }
  const server = createServer(toNodeHandler(app.handler));
  let address: AddressInfo;
  try {
    address = await listen(server, config.port, config.host);
  } catch (cause) {
    forgetSignals();
    await app.close().catch(() => undefined);
    error(`reference host: cannot listen on ${config.host}:${config.port}: ${oneLine(cause)}`);
    return 1;
  }
  log(`listening on ${urlOf(address)}`);
  for (const line of app.banner) log(`  ${line}`);

  const signal = await stopSignal;
  forgetSignals();
  log(`${signal}: finishing in-flight requests`);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
  timer.unref();
  await closed;
  clearTimeout(timer);
  try {
    await app.close();
  } catch (cause) {
    error(`reference host: closing storage failed: ${oneLine(cause)}`);
    return 1;
  }
  log('stopped');
  return 0;
}
