/**
 * The process-wide slot through which the host process hands the catch-all route its handlers.
 * Kept apart from everything else so the route can read it without loading cellgate.
 */

/** Global slot holding the route handlers (`toNextRouteHandlers(handler)`) of the host process. */
export const ROUTE_HANDLERS = Symbol.for('cellgate.next-host.route-handlers');
