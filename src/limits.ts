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

/**
 * Longest rate-limit key stored as it is in a shared (database) rate-limit store; a longer key
 * (a very long actor id) is stored as its SHA-256, so one row stays small whatever the token says.
 */
export const MAX_RATE_LIMIT_KEY_LENGTH = 200;

/** Most expired rate-limit rows one cleanup deletes, so a cleanup is one short statement. */
export const RATE_LIMIT_CLEANUP_BATCH = 1000;

/** Least time between two cleanups of expired rate-limit rows by one process. */
export const RATE_LIMIT_CLEANUP_INTERVAL_MS = 10_000;

/**
 * PostgreSQL `lock_timeout` of cellgate's connections by default: a write waiting longer for a
 * row lock (another change holding the record) answers 503 with `Retry-After`. Configurable
 * (`postgresStorage({ lockTimeoutMs })`).
 */
export const DEFAULT_PG_LOCK_TIMEOUT_MS = 2000;

/** PostgreSQL `statement_timeout` by default: no statement runs longer. Configurable (`statementTimeoutMs`). */
export const DEFAULT_PG_STATEMENT_TIMEOUT_MS = 10_000;

/**
 * Longest wait for a pooled PostgreSQL connection (or a transaction slot) before answering 503
 * with `Retry-After` instead of queueing without end. Configurable (`connectionTimeoutMs`).
 */
export const DEFAULT_PG_CONNECTION_TIMEOUT_MS = 5000;

/**
 * Longest a SQLite write waits for another process's write lock before answering 503. The wait
 * is a series of short tries scheduled on timers, never a blocking sleep. Configurable
 * (`sqliteStorage({ busyTimeoutMs })`).
 */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Longest a SQLite rate-limit count waits for another process's write lock. Past it the request
 * is let through uncounted: a rate limit must not make reads wait behind a long write.
 */
export const RATE_LIMIT_LOCK_WAIT_MS = 100;
