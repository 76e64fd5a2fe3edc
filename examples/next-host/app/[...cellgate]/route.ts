/**
 * Every path of the app goes to cellgate (Next routes more specific folders first).
 *
 * Started by `main.ts` / `cellgate serve --framework next` / the tests, the host process has
 * already loaded cellgate and left its route handlers in a global slot: they are used as they are.
 * Loading cellgate a second time from this bundle would register every zod schema id a second
 * time in zod's process-wide registry, and the OpenAPI document, built from those ids, would
 * refuse the duplicates (a 500 on `/api/openapi.json`). Run on its own (`next start`), the route
 * loads cellgate from the bundle and builds the reference app on first request.
 */
import type { NextRouteHandler, NextRouteHandlers } from 'cellgate/adapters/next';
import { ROUTE_HANDLERS } from '../../slot.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

let bundled: Promise<NextRouteHandlers> | undefined;

function handlers(): NextRouteHandlers | Promise<NextRouteHandlers> {
  const ready = (globalThis as Record<symbol, NextRouteHandlers | undefined>)[ROUTE_HANDLERS];
  if (ready) return ready;
  return (bundled ??= Promise.all([import('cellgate/adapters/next'), import('../../cellgate.ts')]).then(([{ toNextRouteHandlers }, { handler }]) =>
    toNextRouteHandlers(handler),
  ));
}

const method =
  (name: keyof NextRouteHandlers): NextRouteHandler =>
  async (request, context) =>
    (await handlers())[name](request, context);

export const GET = method('GET');
export const HEAD = method('HEAD');
export const POST = method('POST');
export const PUT = method('PUT');
export const PATCH = method('PATCH');
export const DELETE = method('DELETE');
export const OPTIONS = method('OPTIONS');
