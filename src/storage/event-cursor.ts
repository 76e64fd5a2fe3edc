/**
 * The change-feed cursor, shared by every driver: base64url of `e<seq>`, where `seq` is the
 * event's position in commit order. Opaque to clients; a cursor that is not one of ours is a 400.
 */
import { fromBase64Url, toBase64Url } from '../base64.ts';
import { CellgateError } from '../errors.ts';

/** The cursor of the event at `seq`. */
export function encodeEventCursor(seq: string | number | bigint): string {
  return toBase64Url(`e${String(seq)}`);
}

/** The `seq` a cursor stands for (decimal text, at most 19 digits so it fits a bigint). */
export function decodeEventCursor(cursor: string): string {
  // Length is checked before the pattern, so a huge parameter costs nothing.
  const text = cursor.length <= 40 && /^[A-Za-z0-9_-]+$/.test(cursor) ? (fromBase64Url(cursor) ?? '') : '';
  const match = /^e([1-9][0-9]{0,18})$/.exec(text);
  if (match === null) {
    throw new CellgateError('VALIDATION_ERROR', 'The cursor is not valid. Use the cursor of an event this feed returned.', {
      details: { fields: [{ path: 'after', message: 'not a cursor issued by this service' }] },
    });
  }
  return match[1]!;
}
