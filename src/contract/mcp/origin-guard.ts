/**
 * DNS-rebinding protection for the MCP endpoint (MCP transport spec, "Security Warning": servers
 * MUST validate `Origin`, and local servers SHOULD bind to loopback). A web page on `evil.example`
 * can make a browser resolve its own name to 127.0.0.1 and post to a local MCP server; the
 * request then carries `Host: evil.example` and `Origin: http://evil.example`, which this guard
 * refuses with 403 before anything is parsed.
 */

/** Host or origin allow-list: exact values, or `'*'` to switch that check off. */
export type AllowList = readonly string[] | '*';

/** The security part of the MCP options. */
export interface OriginGuardOptions {
  /**
   * `Host` header values accepted. An entry without a port (`api.example.com`) matches any port;
   * an entry with one (`api.example.com:8443`) matches only that port. `'*'` accepts every host;
   * use it only behind a proxy that already checks the host.
   * @default loopback only: `localhost`, `127.0.0.1`, `[::1]`, any port
   */
  allowedHosts?: AllowList;
  /**
   * `Origin` header values accepted (exact `scheme://host[:port]`). A request without `Origin`
   * (any non-browser client) is always accepted. `'*'` accepts every origin.
   * @default loopback origins plus origins whose host is in `allowedHosts`
   */
  allowedOrigins?: AllowList;
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `host[:port]` → lower-cased hostname (IPv6 keeps its brackets). */
function hostnameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

function hostAllowed(host: string, allowed: AllowList | undefined): boolean {
  if (allowed === '*') return true;
  const hostname = hostnameOf(host);
  if (allowed === undefined) return LOOPBACK_HOSTNAMES.has(hostname);
  const lower = host.trim().toLowerCase();
  return allowed.some((entry) => {
    const wanted = entry.toLowerCase();
    return wanted === lower || wanted === hostname;
  });
}

function originAllowed(origin: string, options: OriginGuardOptions): boolean {
  const { allowedOrigins, allowedHosts } = options;
  if (allowedOrigins === '*') return true;
  if (allowedOrigins?.some((entry) => entry.toLowerCase() === origin.toLowerCase())) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the literal `null` origin of sandboxed frames and file: pages
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  // Loopback pages are the local user's own; same-host pages are same-site with the server.
  return LOOPBACK_HOSTNAMES.has(url.hostname) || (allowedHosts !== undefined && allowedHosts !== '*' && hostAllowed(url.host, allowedHosts));
}

/**
 * Checks `Host` and `Origin` of a request. Returns the reason for refusal, or `undefined` when
 * the request may proceed. A request without a `Host` header (a `Request` built in process)
 * is judged by the host of its URL.
 */
export function refusedOrigin(request: Request, options: OriginGuardOptions): string | undefined {
  const host = request.headers.get('host') ?? new URL(request.url).host;
  if (!hostAllowed(host, options.allowedHosts)) {
    return `Forbidden: Host "${host}" is not allowed. Configure mcp.allowedHosts to serve this host.`;
  }
  const origin = request.headers.get('origin');
  if (origin !== null && !originAllowed(origin, options)) {
    return `Forbidden: Origin "${origin}" is not allowed. Configure mcp.allowedOrigins to accept it.`;
  }
  return undefined;
}
