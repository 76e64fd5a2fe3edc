/** Every path of the app goes to cellgate (Next routes more specific folders first). */
import { toNextRouteHandlers } from 'cellgate/adapters/next';
import { handler } from '../../cellgate.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = toNextRouteHandlers(handler);
