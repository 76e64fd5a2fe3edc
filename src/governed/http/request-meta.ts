/**
 * What the audit trail records about a request (docs/decisions/B14.md): the correlation id
 * (`X-Correlation-ID`, generated when absent or not a UUID), the W3C trace id of `traceparent`,
 * the client ip (only from a trusted source) and the user agent.
 */
import { clientAddress } from '../../http/client-address.ts';
import { isUuid } from '../codec.ts';

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-f:.]{2,45}$/i;
const MAX_USER_AGENT = 512;

/** Header carrying the correlation id, read from requests and echoed on every response. */
export const CORRELATION_HEADER = 'x-correlation-id';

/** The request's correlation id: its `X-Correlation-ID` when that is a UUID, else a new one. */
export function correlationIdOf(request: Request): string {
  const given = request.headers.get(CORRELATION_HEADER)?.trim();
  return given && isUuid(given) ? given.toLowerCase() : crypto.randomUUID();
}

/** The trace id of a valid W3C `traceparent` header, else null. */
export function traceIdOf(request: Request): string | null {
  const match = TRACEPARENT.exec(request.headers.get('traceparent')?.trim() ?? '');
  const traceId = match?.[1];
  return traceId && !/^0+$/.test(traceId) ? traceId : null;
}

/** The value when it is an IPv4 or IPv6 address (so it fits an `inet` column), else null. */
export function normalizeIp(value: string | null | undefined): string | null {
  const ip = value?.trim();
  if (!ip) return null;
  if (IPV4.test(ip)) return ip;
  return IPV6.test(ip) && ip.includes(':') && ip.split('::').length <= 2 ? ip.toLowerCase() : null;
}

/**
 * How the client ip is found: a host-supplied function; else `X-Forwarded-For` when `trustProxy`
 * is set; else the socket address the adapter recorded (`setClientAddress`).
 */
export interface ClientIpOptions {
  /** Returns the client address, e.g. from the adapter's socket. Wins over `trustProxy`. */
  ip?: (request: Request) => string | null | undefined;
  /** Read the first `X-Forwarded-For` address. Only behind a proxy that sets it. @default false */
  trustProxy?: boolean;
}

/** The client ip per {@link ClientIpOptions}, or null. */
export function clientIpOf(request: Request, options: ClientIpOptions): string | null {
  if (options.ip) return normalizeIp(options.ip(request));
  if (options.trustProxy) return normalizeIp(request.headers.get('x-forwarded-for')?.split(',', 1)[0]);
  return normalizeIp(clientAddress(request)?.replace(/^::ffff:(?=\d+\.)/, ''));
}

/** The `User-Agent` header, capped in length. */
export function userAgentOf(request: Request): string | null {
  const agent = request.headers.get('user-agent');
  return agent ? agent.slice(0, MAX_USER_AGENT) : null;
}
