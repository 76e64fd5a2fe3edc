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
 * Checking a contract document stops soon after one of its lists has produced this many issues,
 * so `errorsOmitted` counts the issues found, a lower bound of what the document holds.
 */
export const MAX_REPORTED_ISSUES = 100;

/** Most operations in one JSON Patch; longer patches are refused with 400 `VALIDATION_ERROR`. */
export const MAX_PATCH_OPERATIONS = 1000;

/**
 * How many times the body limit a record's business fields may take as JSON text after a create
 * or an update (`recordLimit`, docs/governed.md). A single write is already bounded by the body
 * limit, but repeated JSON Patch `add`s or merge PATCHes of different fields could otherwise grow
 * one record without end, and every read, write and version state of it with it. Four times,
 * because a body's numbers may take more characters once normalised (`1e9` is `1000000000`).
 */
export const RECORD_LIMIT_BODY_MULTIPLE = 4;

/**
 * Most operations an audit diff spends on the changes inside one object field. An object field
 * whose changes take more is recorded as one `replace` of the whole field: the patch stays exact,
 * and the audit record and its event stay near the size of the field instead of repeating a path
 * per changed key (about four times the size of the body that caused them).
 */
export const MAX_NESTED_DIFF_OPERATIONS = 100;

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

/**
 * Most items of any one list in a contract document (manifest, entity, page, entity definition
 * document): entities, pages, fields, roles, navigation items, relations, capabilities, enum
 * values, and so on. A longer list is reported as `Array must contain at most 1000 element(s)`
 * at its path, before any of its items is checked. Not configurable.
 */
export const MAX_CONTRACT_LIST_ITEMS = 1000;

/**
 * Most values (list items plus object members, at every level) one contract document may hold.
 * A bigger document gets a single issue at `root` and is not checked further, so the work spent
 * on a document, and the issues found in it, stay bounded whatever its shape. A real manifest
 * holds a few hundred to a few thousand. Not configurable.
 */
export const MAX_CONTRACT_DOCUMENT_VALUES = 20_000;

/**
 * Most entities in a guidance request: `suggest-pages` keys and `suggest-relations` entities
 * (and the field keys of each of those). A longer list is a 400 `VALIDATION_ERROR`.
 */
export const MAX_GUIDANCE_ENTITIES = 200;

/**
 * Most errors `explain-errors` accepts in one request (as many as a validation result lists),
 * so the answer is never longer than that either.
 */
export const MAX_EXPLAINED_ERRORS = MAX_REPORTED_ISSUES;

/**
 * Most field keys a `suggest-relations` request may carry, all entities together (a longer total
 * is a 400 `VALIDATION_ERROR`). Each field yields at most one suggestion quoting its keys, so the
 * answer stays within the size of the largest `suggest-pages` answer (about 430 KB) instead of
 * growing with entities × fields (200 × 200 short keys gave 5.5 MB from 380 KB).
 */
export const MAX_GUIDANCE_FIELDS = 500;

/** Longest key (entity key, field key) a guidance request may name. */
export const MAX_GUIDANCE_KEY_LENGTH = 128;

/**
 * Longest free text a guidance request may carry: the `recommend` goal and the `field` and
 * `message` of each error sent to `explain-errors`. Checked before any pattern is matched.
 */
export const MAX_GUIDANCE_TEXT_LENGTH = 2000;

/**
 * Longest error message, stack or path written into one log line of an unexpected failure (the
 * rest is cut and counted), so a failure carrying client input never writes an unbounded line.
 */
export const MAX_LOGGED_TEXT_LENGTH = 16 * 1024;

/**
 * Longest rate-limit key stored as it is in a shared (database) rate-limit store; a longer key
 * (a very long actor id) is stored as its SHA-256, so one row stays small whatever the token says.
 */
export const MAX_RATE_LIMIT_KEY_LENGTH = 200;

/** Most expired rate-limit rows one cleanup deletes, so a cleanup is one short statement. */
export const RATE_LIMIT_CLEANUP_BATCH = 1000;

/**
 * Expired rate-limit rows deleted by each request that starts a new row (a caller's first in a
 * window), in the same write: expired rows leave at least twice as fast as new ones come, so the
 * table stays about the size of the callers of two windows however many there are.
 */
export const RATE_LIMIT_SWEEP_PER_NEW_ROW = 2;

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

/** Replicas further behind the primary than this are out of rotation (`maxLagMs` of `postgresStorage`, B37). */
export const DEFAULT_REPLICA_MAX_LAG_MS = 5_000;

/** Longest a read carrying a `Cellgate-Consistency` token waits for a replica to replay past it before the primary serves it (`replicaWaitMs`, B37). */
export const DEFAULT_REPLICA_WAIT_MS = 100;

/** How long a replica's replay position and lag, once read, are trusted before a read checks them again (B37). */
export const REPLICA_HEALTH_TTL_MS = 250;

/** How long a replica that failed stays out of rotation before a read tries it again (B37). */
export const REPLICA_RETRY_MS = 5_000;

/** Longest `Cellgate-Consistency` value read (a PostgreSQL LSN is at most 17 characters); longer is a 400. */
export const CONSISTENCY_TOKEN_MAX_LENGTH = 17;

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
 * Longest a transaction on PGlite (one connection, so one transaction at a time) waits for the
 * ones before it before answering 503 with `Retry-After`. Configurable
 * (`pgliteStorage({ transactionWaitMs })`).
 */
export const DEFAULT_PGLITE_TRANSACTION_WAIT_MS = 5000;

/**
 * Longest a SQLite rate-limit count waits for another process's write lock. Past it the request
 * is counted in the process's memory instead (a per-process limit while the lock is held): a rate
 * limit must not make reads wait behind a long write, nor let them through uncounted.
 */
export const RATE_LIMIT_LOCK_WAIT_MS = 100;

/**
/** Governed list page size when `pageSize` is absent. */
export const DEFAULT_PAGE_SIZE = 20;

/** Largest governed list page; a larger `pageSize` is clamped to it (a smaller than 1 is refused). */
export const MAX_PAGE_SIZE = 100;

/** History page size (`/versions`, `/v1/audit`): default and maximum; a larger `limit` is clamped. */
export const HISTORY_LIMIT = { default: 20, max: 100 } as const;

/**
 * Most characters of JSON the records of one history page may take: `/v1/audit`, an entity's
 * `/history` and a record's `/versions`. A page ends before the record that would pass it (it
 * always holds at least one), and `nextCursor` goes on after the last one served: a record's diff,
 * snapshot or version state can be near `recordLimit`, so 100 of them could otherwise take
 * hundreds of megabytes in memory and on the wire.
 */
export const HISTORY_PAGE_MAX_LENGTH = 8 * 1024 * 1024;

/**
 * Most characters of stored records a list page (`GET …/<resource>?page=&pageSize=`) is read in at
 * once. A page keeps every record `page` and `pageSize` select; past this bound its records are
 * read in batches of at most this size (at least one record each) and the answer is streamed, so
 * a reader holds about one batch, not `pageSize` × `recordLimit` (docs/decisions/B25.md). Pages
 * whose `pageSize` × `recordLimit` stays within it are read in one query, as they always were.
 */
export const LIST_BATCH_MAX_LENGTH = 4 * 1024 * 1024;

/** Longest history `cursor` accepted (ours are far shorter); longer ones are refused with 400. */
export const MAX_CURSOR_LENGTH = 512;

/**
 * Most values (resource types plus workspace ids) one history read (audit page, export, change
 * feed) may put into its storage filter: the reach of an actor with roles in very many workspaces.
 * Past it the read is refused with 400 naming `workspaceId`, which narrows the reach to one
 * workspace. Keeps each statement far below the databases' parameter limits (SQLite 32,766,
 * PostgreSQL 65,535) and its planning cheap (docs/decisions/B08.md).
 */
export const HISTORY_REACH_MAX_TERMS = 2_000;

/** Longest `Idempotency-Key` header. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Longest rollback `reason` stored in the audit record. */
export const MAX_REASON_LENGTH = 1000;

/** Most values of one `in` / `between` list filter. */
export const MAX_FILTER_VALUES = 100;

/**
 * With `Prefer: count=estimated` or `count=planned`, a list total up to this many rows is counted
 * exactly; above it the answer is the lower bound `EXACT_COUNT_THRESHOLD + 1` (`meta.count:
 * planned`), counted in the caller's own scope. Keeps page 1 of a huge collection from costing a
 * full count, and never reports a database-wide estimate, which would count other tenants' rows.
 */
export const EXACT_COUNT_THRESHOLD = 1_000;

/**
 * Largest YAML/JSON document file the CLI reads (`cellgate validate`, and the entity files of the
 * other commands), in bytes: the REST body limit, which the API applies to the same documents.
 * Parsing with line and column positions costs about 100 times a file's size in memory (a dense
 * 1 MiB entity file about 120 MB, a 50 MB one took 1.7 GB), so the size is checked before the
 * file is read whole; a larger file: one line, exit code 2. Not configurable.
 */
export const MAX_DOCUMENT_FILE_BYTES = DEFAULT_BODY_LIMIT;

/** Longest error path `cellgate validate` walks to find a problem's line and column (paths are built by the validator; this only bounds the walk). */
export const MAX_VALIDATE_PATH_LENGTH = 1024;

/** Default page size of the change feed (`GET /v1/events`). */
export const EVENT_FEED_DEFAULT_LIMIT = 100;

/** Largest page of the change feed (`limit` above it: 400 `VALIDATION_ERROR`). */
export const EVENT_FEED_MAX_LIMIT = 500;

/**
 * Most characters of JSON the events of one change-feed page may take. A page stops before the
 * event that would pass it (it always holds at least one), and `nextCursor` continues from there:
 * an event carries its change, which may be near the size of a record (`recordLimit`), so a page
 * of `limit` such events could otherwise take gigabytes.
 */
export const EVENT_FEED_MAX_PAGE_LENGTH = 8 * 1024 * 1024;

/** Longest long-poll of the change feed, in seconds (`wait` above it: 400 `VALIDATION_ERROR`). */
export const EVENT_FEED_MAX_WAIT_SECONDS = 30;

/**
 * How often the long-poll waiters of a process look for events committed by other processes, in
 * milliseconds: one lookup of the latest cursor of every tenant with waiters, not one read per
 * waiter. Commits of the same process wake their tenant's waiters at once.
 */
export const EVENT_FEED_POLL_MS = 250;

/** Tenants whose latest cursor one lookup of the waiters' poll asks for (one statement per this many). */
export const EVENT_FEED_HEADS_BATCH = 500;

/**
 * Most change-feed requests that may wait (`wait` > 0, no event yet) at once in one process;
 * one more answers 429 `RATE_LIMITED` with `Retry-After`. Each waiter holds a connection and a
 * little memory, nothing else. Configurable: `createGovernedApi({ eventFeed: { maxWaiters } })`.
 */
export const EVENT_FEED_MAX_WAITERS = 4096;

/**
 * Most change-feed requests one actor (tenant and actor id) may have waiting at once; one more
 * answers 429 `RATE_LIMITED` with `Retry-After`. A consumer needs one. Configurable:
 * `createGovernedApi({ eventFeed: { maxWaitersPerActor } })`.
 */
export const EVENT_FEED_MAX_WAITERS_PER_ACTOR = 8;

/** `Retry-After` of a feed request refused by a waiter cap, in seconds. */
export const EVENT_FEED_WAITERS_RETRY_AFTER_SECONDS = 5;

/** Most events one webhook fan-out step takes, and most deliveries one dispatch step claims. */
export const WEBHOOK_MAX_BATCH = 500;

/** Longest text of a failed attempt's error kept in the delivery state. */
export const WEBHOOK_ERROR_TEXT_LENGTH = 200;

/**
 * Audit records one export read takes from storage (`GET /v1/audit` as NDJSON, `cellgate audit
 * export`): the unit of the keyset paging that keeps an export's memory constant, whatever its range.
 */
export const AUDIT_EXPORT_PAGE_SIZE = 500;

/** Longest part of an `Accept` header read when choosing between JSON and NDJSON (the rest is ignored). */
export const MAX_ACCEPT_HEADER_LENGTH = 1024;

/** Characters (UTF-16 code units) of NDJSON lines gathered into one chunk of a streamed export before it is handed on. */
export const NDJSON_CHUNK_BYTES = 64 * 1024;

/**
 * Items an erasure reads and rewrites per batch (version states, audit records, events of one
 * record): a long history is rewritten batch by batch, never held in memory at once.
 */
export const ERASURE_BATCH = 200;

/** Most problems of a `cellgate.config.*` file named on the one error line (the rest are counted). */
export const MAX_CONFIG_PROBLEMS_SHOWN = 5;

/** Rows one retention statement removes, and soft-deleted records one purge transaction takes (`purgeHistory`'s default `batchSize`). */
export const PURGE_BATCH_SIZE = 1_000;

/** Largest `batchSize` of `purgeHistory`: bounds each maintenance transaction and its statements' parameter lists. */
export const MAX_PURGE_BATCH = 5_000;

/** Longest operator name of `purgeHistoryAsOperator`: it is recorded as the actor id of every record the job writes. */
export const MAX_OPERATOR_NAME_LENGTH = 200;

/** Tenants an operator's purge run reads per page when it walks every tenant with history. */
export const PURGE_TENANT_PAGE = 100;

/**
 * 2026-07-28 `_meta` envelopes whose verdict (valid or not) the direct MCP `tools/call` path
 * remembers, so a client repeating the same envelope is not re-checked by the SDK on every call.
 * Oldest entries go first.
 */
export const MCP_ENVELOPE_CACHE_ENTRIES = 256;

/** Longest envelope (as JSON text) whose verdict is remembered; a longer one is checked every time. */
export const MCP_ENVELOPE_CACHE_KEY_LENGTH = 2048;

/**
 * Longest text, in characters, an error carries in any of its strings: the message, and each
 * `details.fields` path and message of an error envelope or a validation result; the JSON-RPC
 * error strings of the MCP endpoint. Many of them quote what the client sent (an unknown key,
 * a value missing from a list, a protocol-version claim), so without a bound an answer would grow
 * with the request: up to twice a 1 MiB body. Longer text is cut and ends with "…".
 */
export const MAX_ERROR_TEXT_LENGTH = 1000;

/**
 * Longest tool name (`tools/call`, `name`) and resource URI (`resources/read`, `uri`) the MCP
 * endpoint accepts, in characters. Every name and URI it serves is far shorter; a longer one is
 * refused with -32602 before the SDK would quote it whole in "not found".
 */
export const MAX_MCP_NAME_LENGTH = 256;

/**
 * Largest message `cellgate mcp` reads from stdin (one line), in bytes: four times the HTTP body
 * limit. A longer line is answered with -32600 and skipped; the SDK alone would close the
 * connection past 10 MB.
 */
export const MAX_STDIO_MESSAGE_BYTES = 4 * 1024 * 1024;
export const MAX_MCP_URI_LENGTH = 2048;

/**
 * The longest retention or soft-delete purge period, in days (100 years): `audit.retentionDays`,
 * `purgeDeletedAfterDays`, their environment variables and `cellgate purge` flags. A longer period
 * would put the cut-off before the first date JavaScript can represent ("Invalid time value").
 */
export const MAX_LIFECYCLE_DAYS = 36_500;

/** The longest lifetime `cellgate token --expires` signs a development token for: 366 days, in seconds. */
export const MAX_DEV_TOKEN_LIFETIME_SECONDS = 366 * 24 * 60 * 60;

/**
 * Most stored values a `migrate` refusal quotes for a narrowed enum: the check reads at most this
 * many distinct values outside the enum (`SELECT DISTINCT … LIMIT`). Not configurable.
 */
export const MIGRATION_SAMPLE_VALUES = 5;

/**
 * Rows `migrate` fills per transaction when it backfills a required field added with a `default`
 * (docs/evolving-entities.md): each batch is its own short transaction, so a large table is filled
 * without one long lock, and a killed run resumes where it stopped. Not configurable.
 */
export const MIGRATION_BACKFILL_BATCH = 500;

/**
 * Furthest edit distance at which a governed factory's option error suggests a known name
 * ("did you mean"). A name whose length differs from a known one by more than this is not compared,
 * so an unknown option name costs at most (known names × (longest known name + 3)²) steps,
 * whatever its length.
 */
export const OPTION_SUGGESTION_DISTANCE = 3;

/**
 * Field-access masks kept per entity (docs/field-access.md): one per distinct set of roles a
 * reader holds where a record lives, least recently used dropped first. A mask is cheap to compute
 * again, so the bound only caps memory against callers that cycle through many role sets.
 */
export const FIELD_ACCESS_CACHE_SIZE = 256;

/**
 * Most bytes of one migration file `cellgate migrate` reads (`<NNNN>_<table>.<driver>.sql`,
 * docs/evolving-entities.md#migration-files); a generated file is a few statements. Not configurable.
 */
export const MAX_MIGRATION_FILE_BYTES = 1024 * 1024;

/**
 * Time travel (docs/time-travel.md): records whose state at the instant a collection read as of
 * an instant (`GET …?asOf=`) reads per storage round trip. Memory holds one batch plus the page
 * window at a time, whatever the number of records.
 */
export const AS_OF_LIST_BATCH = 500;

/**
 * Deepest record a collection read as of an instant may page to (`(page - 1) * pageSize`): the
 * historical states are filtered and ordered in the process, which keeps the window before the
 * page in memory, so a deeper page is refused with 400 (narrow it with filters instead).
 */
export const AS_OF_LIST_MAX_OFFSET = 10_000;

/** Longest JSON Pointer `field` of `GET /v1/audit?field=` (characters); a longer one is refused with 400. */
export const AUDIT_FIELD_PATH_MAX_LENGTH = 256;
/**
 * Most records one delete may change through `on_delete: cascade` and `set_null` references
 * (docs/entities.md#relations, docs/decisions/B30.md), counted over the whole cascade (nested ones
 * included). Past it the delete is refused with 409 `REFERENCED` before anything is written, so a
 * delete never does unbounded work in one transaction. Below `MAX_CHANGE_SET_WRITES`, so a cascade
 * also fits a change set that already holds a few writes. Not configurable.
 */
export const MAX_CASCADE_RECORDS = 250;

/** Most referencing records a refused (`restrict`) delete counts for its 409 `REFERENCED` answer; `details.more` says there are more. */
export const REFERENCED_COUNT_LIMIT = 100;

/**
 * Verifiable log (docs/verifiable-history.md): a checkpoint is signed after a tenant's write once
 * this many leaves were added since its last one (`log.everyLeaves`)…
 */
export const CHECKPOINT_EVERY_LEAVES = 1000;

/** …or once this many seconds passed since it (`log.everySeconds`). */
export const CHECKPOINT_EVERY_SECONDS = 60;

/** Leaves the verifier reads per storage round trip (`verifyLog`, `cellgate verify`): memory stays bounded whatever the log's size. */
export const VERIFY_LOG_BATCH = 5000;

/**
 * Most record writes one change set may make (`api.transaction`, docs/entities.md): the next write
 * is refused with 413 `PAYLOAD_TOO_LARGE` and the whole transaction rolls back, so one storage
 * transaction never grows without end (docs/decisions/B27.md). Not configurable.
 */
export const MAX_CHANGE_SET_WRITES = 500;

/**
 * Longest a business rule's `validate` may take, in milliseconds (docs/decisions/B28.md): past it
 * the write fails as an internal error (500, logged) and nothing is written, so a slow rule never
 * holds the write's transaction and its locks longer than this. Not configurable.
 */
export const RULE_TIMEOUT_MS = 2_000;

/** Most issues of one business-rule refusal kept in `details.fields` (the first ones); the rest are dropped. */
export const MAX_RULE_ISSUES = 50;

/**
 * Most referenced records one read may include (`GET …/{id}?include=a,b`, docs/entities.md): one
 * primary-key read each, and never more than the entity has reference fields. More: 400
 * `VALIDATION_ERROR` naming `include`.
 */
export const MAX_INCLUDES = 8;

/**
 * Records of an online upgrade between majors per batch, by default (docs/evolving-entities.md#majors-and-upgrades):
 * each batch is one transaction (its progress row included), so a killed run loses at most one
 * batch of work and resumes after the last committed one.
 */
export const UPGRADE_BATCH_DEFAULT = 200;

/** Most records per upgrade batch (`batchSize`): a batch is one change set, bounded by `MAX_CHANGE_SET_WRITES`. */
export const UPGRADE_BATCH_MAX = 500;

/**
 * Most full passes one upgrade run makes over the older major: a pass re-copies the records written
 * there since their copy; the run stops at the first pass that copies nothing, or after this many
 * (the answer then says `settled: false`; run it again once writes to the older major have stopped).
 */
export const UPGRADE_MAX_PASSES = 5;

/** Most rejected records a dry run lists (the rest are counted in `rejectedOmitted`). */
export const UPGRADE_DRY_RUN_LIST = 100;
