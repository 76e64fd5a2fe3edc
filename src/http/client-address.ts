/**
 * The peer address of a request. A Fetch `Request` has no notion of the socket it came from, so
 * adapters that know it record it here, and the core reads it back. Held in a WeakMap keyed by
 * the request object: nothing to clean up, nothing a client can forge. A request an adapter built
 * itself can instead answer {@link CLIENT_ADDRESS} on demand (no WeakMap entry per request).
 */

const addresses = new WeakMap<object, string>();

/**
 * A getter an adapter's own request objects may define: the socket's remote address,
 * read only when the core asks for it.
 */
export const CLIENT_ADDRESS: unique symbol = Symbol.for('cellgate.http.clientAddress');

/** Records the socket's remote address for `request` (called by adapters). */
export function setClientAddress(request: Request, address: string | undefined): void {
  if (address) addresses.set(request, address);
}

/** The remote address an adapter recorded for `request`, if any. */
export function clientAddress(request: Request): string | undefined {
  return addresses.get(request) ?? (request as { [CLIENT_ADDRESS]?: string | undefined })[CLIENT_ADDRESS];
}
