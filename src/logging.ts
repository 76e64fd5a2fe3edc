/**
 * The logger both handlers (contract and governed) report unexpected failures to: a pino-style
 * interface, the default that writes one JSON line per entry to stderr, and the one function that
 * reports a 500. The client never sees what is logged here, only the correlation id that ties its
 * answer to the log line.
 *
 * Runtime-neutral: no `node:*` imports (the default writes through `process.stderr` when there is
 * one, else `console.error`).
 */
import { MAX_LOGGED_TEXT_LENGTH } from './limits.ts';

/** One logging method, pino-style: a structured object first, an optional message second. */
export type LogMethod = (obj: Record<string, unknown>, msg?: string) => void;

/**
 * A pino-style logger. A real `pino()` logger fits as it is, and so does any object with these
 * four methods (bunyan, a console wrapper, a test spy).
 *
 * @example
 * import pino from 'pino';
 * createContractHandler({ logger: pino() });
 */
export interface Logger {
  error: LogMethod;
  warn: LogMethod;
  info: LogMethod;
  debug: LogMethod;
}

const LEVELS = ['error', 'warn', 'info', 'debug'] as const;

/** True when `value` has the four methods of a {@link Logger}. */
export function isLogger(value: unknown): value is Logger {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  return LEVELS.every((level) => typeof (value as Record<string, unknown>)[level] === 'function');
}

/** Cuts a text to {@link MAX_LOGGED_TEXT_LENGTH} so one failure never writes an unbounded line. */
function capped(text: string): string {
  return text.length <= MAX_LOGGED_TEXT_LENGTH ? text : `${text.slice(0, MAX_LOGGED_TEXT_LENGTH)}… (${text.length - MAX_LOGGED_TEXT_LENGTH} more characters)`;
}

/** An error as plain JSON: name, message and stack (what pino's `err` serialiser keeps, as `name`). */
export function serializeError(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) {
    return { name: error.name, message: capped(error.message), ...(error.stack === undefined ? {} : { stack: capped(error.stack) }) };
  }
  // A thrown string, number or plain object: its type and a bounded text of it.
  let text: string;
  try {
    text = typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    text = String(error);
  }
  return { name: typeof error, message: capped(text) };
}

function writeLine(line: string): void {
  const stderr = (globalThis as { process?: { stderr?: { write?: (text: string) => unknown } } }).process?.stderr;
  if (typeof stderr?.write === 'function') stderr.write(`${line}\n`);
  else console.error(line);
}

/** Numeric levels as pino writes them, so pino tooling (pino-pretty) reads the default lines too. */
const LEVEL_NUMBERS = { error: 50, warn: 40, info: 30, debug: 20 } as const;

function jsonLine(level: (typeof LEVELS)[number]): LogMethod {
  return (obj, msg) => {
    const entry: Record<string, unknown> = { level: LEVEL_NUMBERS[level], time: new Date().toISOString() };
    for (const [key, value] of Object.entries(obj)) entry[key] = value instanceof Error ? serializeError(value) : value;
    if (msg !== undefined) entry.msg = msg;
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      // A circular or BigInt member: keep the message and say the rest could not be written.
      line = JSON.stringify({ level: entry.level, time: entry.time, msg, unserializable: true });
    }
    writeLine(line);
  };
}

/**
 * The default logger: one JSON line per entry on stderr (`{"level":50,"time":"…","msg":"…",…}`,
 * pino's numeric levels; `Error` members become `{ name, message, stack }`). `debug` is silent.
 */
export const stderrJsonLogger: Logger = {
  error: jsonLine('error'),
  warn: jsonLine('warn'),
  info: jsonLine('info'),
  debug: () => undefined,
};

/** Where a handler reports unexpected failures: the host's hook, the host's logger, or the default. */
export interface FailureReporting {
  /** The host's hook; when given (and no `logger`), nothing is written to stderr. */
  onError?: ((error: unknown, request?: Request) => void) | undefined;
  /** The host's logger; when neither this nor `onError` is given, {@link stderrJsonLogger}. */
  logger?: Logger | undefined;
}

/** The message of the log entry of every unexpected failure. */
export const UNEXPECTED_FAILURE_MESSAGE = 'cellgate: unexpected failure answered 500 INTERNAL_ERROR';

/**
 * Reports one unexpected failure: calls `onError` when given, writes one `error` entry to
 * `logger` when given, and to the stderr default when neither is. The entry carries the
 * correlation id the client received, the method and path (never the query string or body, which
 * may hold personal data) and the error (name, message, stack). A throwing hook or logger is
 * ignored: reporting must not turn one failure into two.
 */
export function reportUnexpectedFailure(error: unknown, correlationId: string, request: Request | undefined, reporting: FailureReporting): void {
  if (reporting.onError) {
    try {
      reporting.onError(error, request);
    } catch {
      // Ignored on purpose (see above).
    }
    if (!reporting.logger) return;
  }
  let path: string | undefined;
  if (request) {
    try {
      path = capped(new URL(request.url).pathname);
    } catch {
      path = undefined;
    }
  }
  const logger = reporting.logger ?? stderrJsonLogger;
  const entry: Record<string, unknown> = {
    correlationId,
    ...(request ? { method: request.method, path } : {}),
    // pino's standard serialiser turns `err` into { type, message, stack }; the default into { name, message, stack }.
    err: error instanceof Error ? error : serializeError(error),
  };
  try {
    logger.error(entry, UNEXPECTED_FAILURE_MESSAGE);
  } catch {
    // Ignored on purpose (see above).
  }
}
