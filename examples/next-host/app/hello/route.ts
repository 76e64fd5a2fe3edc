/** A route of the host's own: Next routes this folder before the catch-all. */
export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ from: 'next' });
}
