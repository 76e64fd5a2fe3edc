/**
 * The input schemas of governed operations, shared by the HTTP edge and the programmatic service:
 * ids, versions, the `If-Match` / `Idempotency-Key` headers, history paging and rollback bodies.
 * Each shape is checked by exactly one zod schema here; the router parses wire strings with them,
 * the service parses its callers' arguments with them, and OpenAPI documents them.
 */
import { z } from 'zod';
import { CellgateError, validationError, type FieldIssue } from '../errors.ts';
import { valueNestingDepth } from '../http/json.ts';
import { HISTORY_LIMIT, MAX_CURSOR_LENGTH, MAX_IDEMPOTENCY_KEY_LENGTH, MAX_JSON_DEPTH, MAX_REASON_LENGTH, MAX_REPORTED_ISSUES } from '../limits.ts';
import { hasUnstorableText, isUuid } from './codec.ts';

/** A version number as sent in `If-Match` or `?expectedVersion=`: 1 to 15 digits, no leading zero. */
const VERSION_TEXT = /^[1-9]\d{0,14}$/;

/** A UUID in the 8-4-4-4-12 hex form, lower-cased. The length cap runs before the pattern. */
export const UuidSchema = z
  .string()
  .max(36)
  .refine((value) => isUuid(value), 'Expected a UUID')
  .transform((value) => value.toLowerCase())
  .meta({ format: 'uuid' });

/** A positive integer version (records start at 1). */
export const VersionSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** A version given as text (query string), e.g. `?expectedVersion=3`. */
export const VersionTextSchema = z
  .string()
  .regex(VERSION_TEXT, 'Must be a positive integer')
  .transform(Number)
  .describe('Expected current version of the record; stale → 409 CONFLICT.');

/** `If-Match: "<version>"`: exactly one quoted entity tag holding a positive integer. */
export const IfMatchSchema = z
  .string()
  .max(40)
  .transform((raw, ctx) => {
    const tag = /^\s*"(\d+)"\s*$/.exec(raw)?.[1];
    if (tag === undefined || !VERSION_TEXT.test(tag)) {
      ctx.addIssue({ code: 'custom', message: 'must be "<version>" with a positive integer version' });
      return z.NEVER;
    }
    return Number(tag);
  })
  .describe('Entity tag of the version you hold, e.g. `"3"`; stale → 412 PRECONDITION_FAILED.');

/** `Idempotency-Key`: 1 to 255 visible ASCII characters. */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .regex(/^[\x21-\x7e]+$/, 'must be 1 to 255 visible ASCII characters')
  .describe('Repeat a create safely: the same key and body replay the first answer; another body → 422.');

/** History paging, as numbers (programmatic) or query text. Limits above the maximum are clamped. */
export const HistoryParamsSchema = z.object({
  limit: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,15}$/)
        .transform(Number),
    ])
    .pipe(z.number().int().min(1, 'Must be an integer of at least 1'))
    .transform((value) => Math.min(value, HISTORY_LIMIT.max))
    .optional()
    .describe(`Page size, 1 to ${HISTORY_LIMIT.max} (larger values are clamped). @default ${HISTORY_LIMIT.default}`),
  cursor: z.string().max(MAX_CURSOR_LENGTH).optional().describe('The `meta.nextCursor` of the previous page.'),
});

/** Parsed history paging. */
export interface HistoryPaging {
  limit: number;
  cursor: string | undefined;
}

/** Paging with the defaults applied (an empty cursor means the first page). */
export function historyPaging(params: z.output<typeof HistoryParamsSchema>): HistoryPaging {
  return { limit: params.limit ?? HISTORY_LIMIT.default, cursor: params.cursor === '' ? undefined : params.cursor };
}

/** A JSON object body; an array is a bulk mutation (refused), any other value too. */
export const BodyObjectSchema = z.unknown().transform((body, ctx) => {
  if (Array.isArray(body)) {
    ctx.addIssue({ code: 'custom', message: 'Bulk mutations are not supported: send one JSON object per request. Expected an object, received an array' });
    return z.NEVER;
  }
  if (body === null || typeof body !== 'object') {
    ctx.addIssue({ code: 'custom', message: `Expected a JSON object, received ${body === null ? 'null' : typeof body}` });
    return z.NEVER;
  }
  // HTTP bodies are bounded at parse time; this bounds programmatic calls too, so nothing
  // recursive after it (canonical JSON, patches, diffs) meets an unbounded depth.
  if (valueNestingDepth(body) > MAX_JSON_DEPTH) {
    ctx.addIssue({ code: 'custom', message: `Must not be nested deeper than ${MAX_JSON_DEPTH} levels` });
    return z.NEVER;
  }
  return body as Record<string, unknown>;
});

/**
 * The 400 `VALIDATION_ERROR` of a record with bad fields, listing the first
 * {@link MAX_REPORTED_ISSUES} issues and counting the rest in `details.fieldsOmitted`: a body with
 * a hundred thousand unknown members must not get an answer several times its own size.
 */
export function invalidRecord(message: string, issues: readonly FieldIssue[]): CellgateError {
  if (issues.length <= MAX_REPORTED_ISSUES) return validationError(message, [...issues]);
  return new CellgateError('VALIDATION_ERROR', message, {
    details: { fields: issues.slice(0, MAX_REPORTED_ISSUES), fieldsOmitted: issues.length - MAX_REPORTED_ISSUES },
  });
}

/** The rollback body `{ targetVersion, expectedVersion?, reason?, mode? }` (unknown members refused). */
export const RollbackBodySchema = z.strictObject({
  targetVersion: VersionSchema.describe('An earlier version of this record to return to.'),
  expectedVersion: VersionSchema.optional().describe('The version you hold; stale → 409 CONFLICT.'),
  reason: z
    .string()
    .max(MAX_REASON_LENGTH)
    .refine((value) => !hasUnstorableText(value), 'Must not contain NUL characters or unpaired surrogates')
    .nullable()
    .optional()
    .describe('Stored in the audit record.'),
  mode: z.literal('revert-by-new-version').optional(),
});

/** A parsed rollback body. */
export type RollbackBody = z.output<typeof RollbackBodySchema>;

/** Where an input comes from, for the message of its 400 (`Invalid query parameter: limit.`). */
export type InputKind = 'query parameter' | 'header' | 'body member' | 'parameter';

/** The issues of a failed parse as `{ path, message }`, `root` for the value itself. */
export function issuesOf(error: z.ZodError, prefix?: string): FieldIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : (prefix ?? 'root');
    const message = issue.code === 'unrecognized_keys' ? `Unknown member${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}` : issue.message;
    return issue.code === 'unrecognized_keys' && issue.path.length === 0 ? { path: issue.keys.join(', '), message } : { path, message };
  });
}

/**
 * Parses `value` with `schema`, or throws 400 `VALIDATION_ERROR` naming each bad input. `name`
 * names a single value (`If-Match`) so its issues carry that path.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, kind: InputKind, name?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationErrorOf(kind, issuesOf(result.error, name));
}

/** 400 `VALIDATION_ERROR` whose message names each bad input: `Invalid query parameter: page, sortBy.` */
export function validationErrorOf(kind: InputKind, issues: FieldIssue[]): CellgateError {
  const names = [...new Set(issues.map((issue) => issue.path))].join(', ');
  return validationError(`Invalid ${kind}: ${names}.`, issues);
}

/**
 * Parses an id that names a record, workspace or cell: anything but a UUID names nothing in this
 * tenant, so it answers 404 like a record in another tenant, without touching storage.
 */
export function parseId(value: unknown, what = 'Record'): string {
  const result = UuidSchema.safeParse(value);
  if (!result.success) throw new CellgateError('NOT_FOUND', `${what} not found`);
  return result.data;
}
