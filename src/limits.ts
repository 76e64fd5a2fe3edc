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

/** Governed list page size when `pageSize` is absent. */
export const DEFAULT_PAGE_SIZE = 20;

/** Largest governed list page; a larger `pageSize` is clamped to it (a smaller than 1 is refused). */
export const MAX_PAGE_SIZE = 100;

/** History page size (`/versions`, `/v1/audit`): default and maximum; a larger `limit` is clamped. */
export const HISTORY_LIMIT = { default: 20, max: 100 } as const;

/** Longest history `cursor` accepted (ours are far shorter); longer ones are refused with 400. */
export const MAX_CURSOR_LENGTH = 512;

/** Longest `Idempotency-Key` header. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Longest rollback `reason` stored in the audit record. */
export const MAX_REASON_LENGTH = 1000;

/** Most values of one `in` / `between` list filter. */
export const MAX_FILTER_VALUES = 100;

/**
 * With `Prefer: count=estimated`, a list total up to this many rows is counted exactly; above it
 * the database's estimate is given (PostgreSQL's planner; on SQLite a count capped here, then the
 * table's size). Keeps page 1 of a huge collection from costing a full count.
 */
export const EXACT_COUNT_THRESHOLD = 1_000;
