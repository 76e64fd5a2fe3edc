/**
 * Settings of the reference host, read from the environment (docs/reference-host.md). A bad value
 * throws a `ConfigurationError` whose message is the one line the host prints before exiting 1.
 */
import { ConfigurationError } from 'cellgate';

/** The reference host's settings. Storage and auth read their own variables from `env`. */
export interface ReferenceConfig {
  /** Listen port; `0` picks a free one. @default 3000 */
  port: number;
  /** Listen address. @default '127.0.0.1' */
  host: string;
  /** The environment the settings came from (`DATABASE_URL`, `CELLGATE_JWT_*`, …). */
  env: Readonly<Record<string, string | undefined>>;
}

/** Default listen port. */
export const DEFAULT_PORT = 3000;
/** Default listen address: loopback only, so a fresh checkout is not exposed on the network. */
export const DEFAULT_HOST = '127.0.0.1';

function parsePort(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(port) || port > 65535) {
    throw new ConfigurationError('PORT', `must be an integer from 0 to 65535 (0 = any free port), got "${value}"`);
  }
  return port;
}

function parseHost(value: string | undefined): string {
  if (value === undefined || value.trim() === '') return DEFAULT_HOST;
  const host = value.trim();
  // A hostname, an IPv4 address or an IPv6 address (optionally in brackets); no scheme, port or path.
  if (!/^(\[?[0-9A-Fa-f:.]+\]?|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)$/.test(host)) {
    throw new ConfigurationError('HOST', `must be a host name or IP address without scheme or port, got "${value}"`);
  }
  return host.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Reads `PORT` and `HOST` from `env`.
 *
 * @example
 * loadConfig({ PORT: '0' }); // { port: 0, host: '127.0.0.1', env: { PORT: '0' } }
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): ReferenceConfig {
  return { port: parsePort(env.PORT), host: parseHost(env.HOST), env };
}
