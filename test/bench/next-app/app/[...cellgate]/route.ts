/** The adapter side: every path goes to cellgate through toNextRouteHandlers. */
import { toNextRouteHandlers } from 'cellgate/adapters/next';
import { benchSlot } from '../../slot.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = toNextRouteHandlers(async () => benchSlot().handler);
