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

/** Most operations in one JSON Patch; longer patches are refused with 400 `VALIDATION_ERROR`. */
export const MAX_PATCH_OPERATIONS = 1000;

/**
 * Most JSON values (objects, arrays, scalars) one JSON Patch may insert with `add`, `replace`,
 * `copy` and `move`, counted over all its operations. Without it a handful of `copy` operations
 * doubling a field would grow a record exponentially. Beyond it: 400 `VALIDATION_ERROR`.
 */
export const MAX_PATCH_INSERTED_VALUES = 100_000;

/**
 * Longest string (in UTF-16 code units) a sortable or filterable string field accepts. Such
 * fields are indexed, and a PostgreSQL B-tree entry holds at most about 2.7 KB: at three UTF-8
 * bytes per unit, 512 units always fit. Longer values get 400 `VALIDATION_ERROR` on every driver
 * alike. Other string fields are bounded only by the body size. Not configurable.
 */
export const MAX_INDEXED_STRING_LENGTH = 512;

/**
 * Longest search term (`q`) and `contains` / `startsWith` filter value. A substring match costs
 * the term's length times the text's length per row, so the term is kept short. Longer: 400
 * `VALIDATION_ERROR`. Not configurable.
 */
export const MAX_SEARCH_TERM_LENGTH = 200;

/** Longest e-mail address (RFC 5321 path limit). Checked before the format. */
export const MAX_EMAIL_LENGTH = 254;

/** Longest URL a `format: url` field accepts. Checked before the format. */
export const MAX_URL_LENGTH = 2048;

/** Longest RFC 3339 date-time accepted (nanosecond fraction and offset fit in 35). */
export const MAX_DATE_TIME_LENGTH = 64;

/**
 * Most expired idempotency records one keyed create deletes (the sweep that keeps the table
 * bounded: each keyed create adds one record and removes up to this many expired ones).
 */
export const IDEMPOTENCY_SWEEP_BATCH = 100;

/** Default lifetime of an `Idempotency-Key` record: 24 hours; configurable per resource. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Default page size of the change feed (`GET /v1/events`). */
export const EVENT_FEED_DEFAULT_LIMIT = 100;

/** Largest page of the change feed (`limit` above it: 400 `VALIDATION_ERROR`). */
export const EVENT_FEED_MAX_LIMIT = 500;

/** Longest long-poll of the change feed, in seconds (`wait` above it: 400 `VALIDATION_ERROR`). */
export const EVENT_FEED_MAX_WAIT_SECONDS = 30;

/** How often a waiting feed request looks for new events, in milliseconds. */
export const EVENT_FEED_POLL_MS = 250;

/** Most events one webhook fan-out step takes, and most deliveries one dispatch step claims. */
export const WEBHOOK_MAX_BATCH = 500;

/** Longest text of a failed attempt's error kept in the delivery state. */
export const WEBHOOK_ERROR_TEXT_LENGTH = 200;
