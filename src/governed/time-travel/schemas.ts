/**
 * The inputs of time travel (docs/time-travel.md), one schema per shape, shared by the HTTP
 * operation table and the programmatic service: an instant (`asOf`), a version in a path
 * (`/versions/{n}`) and the pair of versions of a diff (`/changes?from=&to=`).
 */
import { z } from 'zod';
import { AUDIT_FIELD_PATH_MAX_LENGTH, MAX_DATE_TIME_LENGTH } from '../../limits.ts';
import { normalizeDateTime } from '../codec.ts';
import { VersionSchema, VersionTextSchema } from '../service-schemas.ts';

const INSTANT_MESSAGE = 'asOf must be an RFC 3339 date-time, e.g. 2026-01-01T00:00:00Z';

/** An instant of `?asOf=`: an RFC 3339 date-time, normalised to UTC (`Date#toISOString()`). */
export const AsOfSchema = z
  .string({ error: INSTANT_MESSAGE })
  .max(MAX_DATE_TIME_LENGTH, INSTANT_MESSAGE)
  .transform((value, ctx) => normalizeDateTime(value) ?? (ctx.addIssue({ code: 'custom', message: INSTANT_MESSAGE }), z.NEVER))
  .describe('Read the state as it was at this instant (RFC 3339 date-time); needs `audit:read` (docs/time-travel.md).');

/** An instant given in code: an RFC 3339 date-time or a valid `Date`, normalised to UTC. */
export const AsOfInputSchema = z.union([
  z
    .date({ error: INSTANT_MESSAGE })
    .refine((date) => !Number.isNaN(date.getTime()), INSTANT_MESSAGE)
    .transform((date) => date.toISOString()),
  AsOfSchema,
]);

/** A version number as text (path segment, query) or, in code, a number. */
export const VersionRefSchema = z.union([VersionSchema, VersionTextSchema]).pipe(VersionSchema);

/** The query of `GET …/{id}/versions/{n}`: none. */
export const VersionAtQuerySchema = z.strictObject({});

/** The query of `GET …/{id}/changes`: the two versions, in either order. */
export const ChangesQuerySchema = z.strictObject({
  from: VersionRefSchema.describe('The version the patch applies to.'),
  to: VersionRefSchema.describe('The version the patch turns it into (earlier or later than `from`).'),
});

/** Parsed changes query. */
export type ChangesQuery = z.output<typeof ChangesQuerySchema>;

/**
 * The `field` of `GET /v1/audit?field=`: a JSON Pointer to a business field (`/status`,
 * `/address/city`), capped in length before any pattern is tried.
 */
export const AuditFieldSchema = z
  .string()
  .max(AUDIT_FIELD_PATH_MAX_LENGTH, `field must be at most ${AUDIT_FIELD_PATH_MAX_LENGTH} characters`)
  .regex(/^(\/([^/~]|~[01])+)+$/, 'field must be a JSON Pointer to a field, e.g. /status')
  .describe(
    'Only audit records that changed this field (JSON Pointer; a path prefix: `/address` matches `/address/city`); a create counts as changing every field it sets.',
  );
