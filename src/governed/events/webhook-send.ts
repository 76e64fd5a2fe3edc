/**
 * One webhook POST to a target whose addresses are checked where the connection is made
 * (docs/events.md#where-webhooks-may-go). On runtimes with Node's `http`, `https` and `dns`
 * (Node, Bun, Deno), the request's own `lookup` resolves the host name and refuses it when any
 * address it resolves to is not allowed; the socket then connects to exactly the addresses that
 * were checked, so a name that changes its answer between a check and the connection (DNS
 * rebinding) gains nothing. Elsewhere (workerd, whose fetch does not reach private networks) the
 * URL's own host is checked and `fetch` sends. The modules are looked up at run time, not
 * imported, so the root entry stays free of Node built-ins.
 */
import { addressRefusal, hostRefusal, type WebhookTargetAllowance } from './webhook-target.ts';

/** Resolves a host name to its IP addresses, as the dispatcher's `resolveHost` option. */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

/** Sends `body` to `url`; resolves the answer's status, or throws on no answer (refused target, network error, timeout). */
export type WebhookSend = (url: string, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<number>;

/** A target refused before anything was sent to it. */
export class WebhookTargetRefusedError extends Error {
  override readonly name = 'WebhookTargetRefused';
}

interface LookupAddress {
  address: string;
  family: number;
}
type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** The parts of Node's `http` / `https` used here. */
interface HttpModule {
  request(url: URL, options: Record<string, unknown>): OutgoingRequest;
}
interface OutgoingRequest {
  once(event: 'response', listener: (response: { statusCode?: number; destroy(): void }) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  end(body: string): void;
}
/** The part of Node's `dns` used here. */
interface DnsModule {
  promises: { lookup(hostname: string, options: { all: true; verbatim: true }): Promise<LookupAddress[]> };
}

/** A built-in module of the runtime, looked up at run time (Node >= 20.16, Bun, Deno); undefined elsewhere. */
function builtin<T>(name: string): T | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return typeof runtime?.getBuiltinModule === 'function' ? (runtime.getBuiltinModule(name) as T | undefined) : undefined;
}

/** Throws when the URL's own host (an IP literal, a `localhost` name) is not allowed. */
function checkHost(url: URL, allow: WebhookTargetAllowance): void {
  const refusal = hostRefusal(url.hostname, allow);
  if (refusal !== undefined) throw new WebhookTargetRefusedError(`target refused: ${refusal}`);
}

/**
 * A `lookup` for `http.request`: resolves with `resolve`, refuses the name when any of its
 * addresses is not allowed (an attacker's name may answer a public and a private address), and
 * hands the checked addresses to the socket.
 */
function guardedLookup(resolve: ResolveHost, allow: WebhookTargetAllowance) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        let error: Error | null = addresses.length === 0 ? new WebhookTargetRefusedError(`target refused: ${hostname} resolves to no address`) : null;
        for (const address of addresses) {
          const refusal = addressRefusal(address, allow);
          if (error === null && refusal !== undefined) error = new WebhookTargetRefusedError(`target refused: ${hostname} resolves to ${refusal}`);
        }
        if (error !== null) return callback(error, '');
        const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all === true) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), ''),
    );
  };
}

/**
 * The sender of a dispatcher: targets must be public addresses unless `allow` says otherwise.
 * `resolve` replaces the system resolver (for a host with its own, or a test).
 */
export function createWebhookSend(allow: WebhookTargetAllowance, resolve?: ResolveHost): WebhookSend {
  const http = builtin<HttpModule>('node:http');
  const https = builtin<HttpModule>('node:https');
  const dns = builtin<DnsModule>('node:dns');
  if (http === undefined || https === undefined || (dns === undefined && resolve === undefined)) {
    return async (url, headers, body, timeoutMs) => {
      checkHost(new URL(url), allow);
      const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      // The answer's body is not needed; dropping it frees the connection without reading it.
      await response.body?.cancel().catch(() => undefined);
      return response.status;
    };
  }
  const lookup = guardedLookup(
    resolve ?? (async (hostname) => (await dns!.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)),
    allow,
  );
  return (url, headers, body, timeoutMs) =>
    new Promise<number>((settle, fail) => {
      const target = new URL(url);
      checkHost(target, allow);
      const request = (target.protocol === 'https:' ? https : http).request(target, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(new TextEncoder().encode(body).byteLength) },
        lookup,
        signal: AbortSignal.timeout(timeoutMs),
      });
      request.once('response', (response) => {
        // Only the status matters; the answer's body is never read (it could be of any size).
        settle(response.statusCode ?? 0);
        response.destroy();
      });
      // Kept for the request's life: an error after the answer (the dropped body) must find a listener.
      request.on('error', fail);
      request.end(body);
    });
}
