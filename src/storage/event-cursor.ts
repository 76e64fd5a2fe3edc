/**
 * The change-feed cursor, shared by every driver: base64url of `t<n>`, where `n` is the event's
 * position among its own tenant's events in commit order (1 for a tenant's first event). A
 * tenant's cursors move only with its own writes, so they say nothing about other tenants'
 * (docs/decisions/B20.md). Opaque to clients; a cursor that is not one of ours is a 400 naming `after`.
 */
import { fromBase64Url, toBase64Url } from '../base64.ts';
import { CellgateError } from '../errors.ts';

/** Largest position a cursor may name: PostgreSQL's and SQLite's signed 64-bit integer. */
const MAX_POSITION = 9_223_372_036_854_775_807n;

/** The cursor of a tenant's `position`-th event. */
export function encodeEventCursor(position: string | number | bigint): string {
  return toBase64Url(`t${String(position)}`);
}

function refused(message: string, detail: string): CellgateError {
  return new CellgateError('VALIDATION_ERROR', message, { details: { fields: [{ path: 'after', message: detail }] } });
}

/**
 * The tenant position a cursor stands for, as decimal text (it fits a signed 64-bit integer on
 * every driver). Anything else is one 400 `VALIDATION_ERROR` naming `after`, whatever the driver:
 * a position past 64 bits, a cursor of the global sequence older versions issued, or not ours.
 */
export function decodeEventCursor(cursor: string): string {
  // Length is checked before the pattern, so a huge parameter costs nothing.
  const text = cursor.length <= 40 && /^[A-Za-z0-9_-]+$/.test(cursor) ? (fromBase64Url(cursor) ?? '') : '';
  const match = /^([et])([1-9][0-9]{0,18})$/.exec(text);
  if (match?.[1] === 'e') {
    throw refused(
      'This cursor was issued before feed cursors became per tenant, and is no longer accepted. Read from the start (no `after`) and skip the event ids you have processed.',
      'a cursor of the former global sequence',
    );
  }
  if (match === null || BigInt(match[2]!) > MAX_POSITION)
    throw refused('The cursor is not valid. Use the cursor of an event this feed returned.', 'not a cursor issued by this service');
  return match[2]!;
}
