/**
 * The peer address of a request. A Fetch `Request` has no notion of the socket it came from, so
 * adapters that know it (the Node adapters) record it here, and the core reads it back. Held in a
 * WeakMap keyed by the request object: nothing to clean up, nothing a client can forge.
 */

const addresses = new WeakMap<object, string>();

/** Records the socket's remote address for `request` (called by adapters). */
export function setClientAddress(request: Request, address: string | undefined): void {
  if (address) addresses.set(request, address);
}

/** The remote address an adapter recorded for `request`, if any. */
export function clientAddress(request: Request): string | undefined {
  return addresses.get(request);
}
