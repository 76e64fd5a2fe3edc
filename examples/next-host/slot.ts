/**
 * The process-wide slot through which the host process hands the catch-all route its handlers.
 * Kept apart from everything else so the route can read it without loading cellgate; the host
 * side (`ROUTE_HANDLERS` of `cellgate/host/frameworks`) uses the same `Symbol.for` key.
 */

/** Global slot holding the route handlers (`toNextRouteHandlers(handler)`) of the host process. */
export const ROUTE_HANDLERS = Symbol.for('cellgate.next-host.route-handlers');
