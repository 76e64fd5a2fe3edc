/**
 * Every bound cellgate puts on what a client can send or make it do, in one place. Each limit is
 * documented in `docs/security.md` with what a refusal looks like and whether it can be
 * configured. Work on client input must stay linear in its size and run after the length caps
 * below: a regular expression never sees a string longer than its cap.
 */

/** Default request body limit in bytes (1 MiB); configurable per handler with `bodyLimit`. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Deepest nesting of arrays and objects a JSON body may have (the top-level value counts as 1).
 * Deeper bodies are refused at parse time with 400 `BAD_REQUEST`, before any recursive code
 * (validation, canonical JSON, diffs) sees them. Not configurable.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Most validation issues reported in one answer. The rest are counted, not listed (the
 * `errorsOmitted` member of a validation result; `details.fieldsOmitted` of a 400 envelope).
 */
export const MAX_REPORTED_ISSUES = 100;

/** Longest e-mail address (RFC 5321 path limit). Checked before the format. */
export const MAX_EMAIL_LENGTH = 254;

/** Longest URL a `format: url` field accepts. Checked before the format. */
export const MAX_URL_LENGTH = 2048;

/** Longest RFC 3339 date-time accepted (nanosecond fraction and offset fit in 35). */
export const MAX_DATE_TIME_LENGTH = 64;

/** Default lifetime of an `Idempotency-Key` record: 24 hours; configurable per resource. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Longest error path `cellgate validate` walks to find a problem's line and column (paths are built by the validator; this only bounds the walk). */
export const MAX_VALIDATE_PATH_LENGTH = 1024;
