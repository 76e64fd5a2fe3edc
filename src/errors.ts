/**
 * The two error families of cellgate.
 *
 * - {@link CellgateError}: a wire error. It carries a SCREAMING_SNAKE `code`; the HTTP status comes
 *   from {@link errorStatus}, the one table that maps codes to statuses. Handlers throw it and the
 *   choke point in `http/responses.ts` renders the envelope `{ error, message, details? }`.
 * - {@link ConfigurationError}: thrown at construction time (a bad option, a bad entity document)
 *   with the path of the offending value. It never reaches the wire.
 */
import { clipErrorText } from './error-text.ts';
import { MAX_ERROR_TEXT_LENGTH } from './limits.ts';

/**
 * Brands that mark cellgate's errors across copies of the package. An app can load two copies
 * (two versions in `node_modules`, or one bundled into a dependency); a bare `instanceof` against
 * one copy's class misses errors thrown by the other, and a wire error would turn into a 500. The
 * classes answer `instanceof` by the brand instead, so either copy recognises the other's errors.
 * The brand names the shape (`code`, `status`, `details`, `headers`, `toBody()`); a change of
 * that shape must change the brand.
 */
const CELLGATE_ERROR_BRAND = Symbol.for('cellgate.error.v1');
const CONFIGURATION_ERROR_BRAND = Symbol.for('cellgate.configuration-error.v1');

/**
 * `instanceof` by brand for the branded base class itself; subclasses keep the ordinary prototype
 * check, so `error instanceof MyError` still means that exact subclass.
 */
function brandedInstance(base: object, brand: symbol, self: object, value: unknown): boolean {
  if (self !== base) return Function.prototype[Symbol.hasInstance].call(self, value);
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/** HTTP status for every wire error code. The only place a code meets a status. */
export const errorStatus = {
  BAD_REQUEST: 400,
  VALIDATION_ERROR: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PLAN_RESTRICTION: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  AUDIT_IMMUTABLE: 409,
  REFERENCED: 409,
  HISTORY_PURGED: 410,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BUSINESS_RULE_VIOLATION: 422,
  ROLLBACK_DISABLED: 422,
  INVALID_TARGET_VERSION: 422,
  TIME_TRAVEL_DISABLED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  REFERENCE_NOT_FOUND: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
} as const;

/** A wire error code. */
export type ErrorCode = keyof typeof errorStatus;

/** The error envelope of every non-2xx JSON answer (docs/governed-conventions.md#errors-and-status-taxonomy). */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** One offending input location, as carried in `details.fields` of a `VALIDATION_ERROR`. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** Options of a {@link CellgateError} beyond code and message. */
export interface CellgateErrorOptions {
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. `Allow` on 405 or `Retry-After` on 429. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * A request-level failure that answers with the envelope. The message is shown to clients, so it
 * must never carry SQL, stack frames, constraint names or internal ids.
 *
 * @example
 * throw new CellgateError('NOT_FOUND', 'Primitive "x" not found. Call list_primitives to see the catalog.');
 */
export class CellgateError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  /** True for a CellgateError of any copy of the package (see the brand above). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return brandedInstance(CellgateError, CELLGATE_ERROR_BRAND, this, value);
  }

  static {
    Object.defineProperty(this.prototype, CELLGATE_ERROR_BRAND, { value: true });
  }

  /**
   * The message and each `details.fields` path and message are cut to 1,000 characters
   * (`MAX_ERROR_TEXT_LENGTH`), ending with "…": they often quote the request.
   */
  constructor(code: ErrorCode, message: string, options: CellgateErrorOptions = {}) {
    super(clipErrorText(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CellgateError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = options.details === undefined ? undefined : withClippedFields(options.details);
    this.headers = options.headers;
  }

  /** The envelope this error renders to. */
  toBody(): ErrorBody {
    return this.details === undefined ? { error: this.code, message: this.message } : { error: this.code, message: this.message, details: this.details };
  }
}

/** `details` with its `fields` entries' `path` and `message` clipped (the same object when none is too long). */
function withClippedFields(details: Record<string, unknown>): Record<string, unknown> {
  const { fields } = details;
  if (!Array.isArray(fields) || !fields.some(hasLongText)) return details;
  return { ...details, fields: fields.map(clipField) };
}

function isLongText(value: unknown): boolean {
  return typeof value === 'string' && value.length > MAX_ERROR_TEXT_LENGTH;
}

function hasLongText(field: unknown): boolean {
  return typeof field === 'object' && field !== null && (isLongText((field as FieldIssue).path) || isLongText((field as FieldIssue).message));
}

function clipField(field: unknown): unknown {
  if (!hasLongText(field)) return field;
  const { path, message } = field as FieldIssue;
  return {
    ...(field as FieldIssue),
    path: typeof path === 'string' ? clipErrorText(path) : path,
    message: typeof message === 'string' ? clipErrorText(message) : message,
  };
}

/** A `VALIDATION_ERROR` listing each offending input with its path. */
export function validationError(message: string, fields: FieldIssue[]): CellgateError {
  return new CellgateError('VALIDATION_ERROR', message, { details: { fields } });
}

/**
 * A mistake in how cellgate was configured (an option, an entity document, a custom primitive),
 * raised when the handler or resource is created, never while serving. `path` names the bad value,
 * e.g. `entity.fields.amount.type` or `options.basePath`.
 */
export class ConfigurationError extends Error {
  readonly path: string;

  /** True for a ConfigurationError of any copy of the package (see the brand above). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return brandedInstance(ConfigurationError, CONFIGURATION_ERROR_BRAND, this, value);
  }

  static {
    Object.defineProperty(this.prototype, CONFIGURATION_ERROR_BRAND, { value: true });
  }

  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'ConfigurationError';
    this.path = path;
  }
}
