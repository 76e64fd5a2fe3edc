/**
 * JSON parsing for client input with a nesting bound. `JSON.parse` itself copes with any depth,
 * but everything recursive after it (zod, canonical JSON for idempotency, diffs, redaction) would
 * overflow the stack on a body nested thousands of levels deep and answer 500. So a body deeper
 * than {@link MAX_JSON_DEPTH} is refused here, at the edge, in one linear pass over the text.
 */
import { CellgateError } from '../errors.ts';
import { MAX_JSON_DEPTH } from '../limits.ts';

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting of objects and arrays in a JSON text, stopping early once `limit` is
 * passed (the answer is then `limit + 1`). Linear in the text; strings are skipped, so brackets
 * inside them do not count. The text need not be valid JSON: `JSON.parse` judges that.
 */
export function jsonNestingDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // Strings are most of a JSON text: find their end with indexOf (a fast native search) rather
      // than char by char. A quote preceded by an odd run of backslashes is escaped: search on.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end === -1) return deepest;
        i = end;
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
      }
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

/** The 400 for a body nested deeper than the limit. */
export function tooDeepError(limit = MAX_JSON_DEPTH): CellgateError {
  return new CellgateError('BAD_REQUEST', `Request body is nested deeper than ${limit} levels.`, {
    details: { maxDepth: limit },
  });
}

/**
 * `JSON.parse` for client input: 400 `BAD_REQUEST` in the envelope for malformed JSON and for
 * nesting deeper than {@link MAX_JSON_DEPTH}.
 */
export function parseClientJson(text: string, what = 'Request body'): unknown {
  const value = parseJsonText(text, what);
  boundJsonDepth(text, value);
  return value;
}

/**
 * The first half of {@link parseClientJson}: `JSON.parse` with the 400 for malformed JSON, and no
 * depth bound. Only for a caller that proves the nesting of the value itself, or else calls
 * {@link boundJsonDepth} before anything recursive touches the value.
 */
export function parseJsonText(text: string, what = 'Request body'): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof SyntaxError ? ` ${error.message}` : '';
    throw new CellgateError('BAD_REQUEST', `${what} is not valid JSON.${detail}`);
  }
}

/** The second half of {@link parseClientJson}: the 400 when `text` (parsed as `value`) nests deeper than {@link MAX_JSON_DEPTH}. */
export function boundJsonDepth(text: string, value: unknown): void {
  // A text shorter than the limit cannot hold that many opening brackets: skip the scan.
  if (value !== null && typeof value === 'object' && text.length > MAX_JSON_DEPTH && jsonNestingDepth(text) > MAX_JSON_DEPTH) {
    throw tooDeepError();
  }
}

/**
 * The deepest nesting of an already parsed value, stopping once `limit` is passed. For input that
 * arrives parsed (stdio messages, programmatic calls), where there is no text to scan. Iterative,
 * so it cannot overflow the stack itself.
 */
export function valueNestingDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return deepest;
    }
    const children = Array.isArray(current) ? current : Object.values(current as object);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return deepest;
}
