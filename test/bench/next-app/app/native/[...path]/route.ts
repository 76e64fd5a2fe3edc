/**
 * The native side under /native: the catalog bytes for GET, and the governed PATCH written by
 * hand (Next parses nothing ahead of a route handler, so the route reads the JSON itself).
 */
import { benchSlot } from '../../../slot.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
const JSON_TYPE = 'application/json; charset=utf-8';

export function GET(): Response {
  return new Response(benchSlot().primitives as BodyInit, { headers: { 'content-type': JSON_TYPE } });
}

export async function PATCH(request: Request, context: { params: Promise<{ path: string[] }> }): Promise<Response> {
  const { path } = await context.params;
  const answer = await benchSlot().patchNatively(path.at(-1)!, await request.json(), {
    authorization: request.headers.get('authorization') ?? undefined,
    'if-match': request.headers.get('if-match') ?? undefined,
    'user-agent': request.headers.get('user-agent') ?? undefined,
  });
  return new Response(answer.text, { headers: { 'content-type': JSON_TYPE, etag: answer.etag, 'x-correlation-id': answer.correlationId } });
}
