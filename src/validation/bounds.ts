/**
 * Bounds every validation entry point applies: a document too deep or too big is reported with
 * one issue at `root` before any recursive or per-item work, and no result lists more than
 * {@link MAX_REPORTED_ISSUES} issues (the rest are counted in `errorsOmitted`). So the work and
 * the answer stay small whatever a client sends, and nothing overflows the stack.
 */
import { CellgateError, type FieldIssue } from '../errors.ts';
import { clipErrorText } from '../error-text.ts';
import { MAX_CONTRACT_DOCUMENT_VALUES, MAX_ERROR_TEXT_LENGTH, MAX_JSON_DEPTH, MAX_REPORTED_ISSUES } from '../limits.ts';
import type { ValidationIssue, ValidationResult } from './results.ts';

const tooDeep: ValidationIssue = { field: 'root', message: `Document is nested deeper than ${MAX_JSON_DEPTH} levels` };
const tooManyValues: ValidationIssue = {
  field: 'root',
  message: `Document holds more than ${MAX_CONTRACT_DOCUMENT_VALUES} values (list items and object members)`,
};

/**
 * The issue for a document nested deeper than {@link MAX_JSON_DEPTH} or holding more than
 * {@link MAX_CONTRACT_DOCUMENT_VALUES} values, or `undefined` when it is within both. One
 * iterative pass that stops as soon as a bound is passed.
 */
export function documentBoundsIssue(input: unknown): ValidationIssue | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  let values = 0;
  // Two parallel stacks rather than one of pairs: this runs on every document, so no allocation per value.
  const containers: object[] = [input];
  const depths: number[] = [1];
  while (containers.length > 0) {
    const current = containers.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    if (depth > MAX_JSON_DEPTH) return { ...tooDeep };
    if (Array.isArray(current)) {
      values += current.length;
      if (values > MAX_CONTRACT_DOCUMENT_VALUES) return { ...tooManyValues };
      for (const child of current) {
        if (child !== null && typeof child === 'object') {
          containers.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        if (++values > MAX_CONTRACT_DOCUMENT_VALUES) return { ...tooManyValues };
        const child = current[key];
        if (child !== null && typeof child === 'object') {
          containers.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return undefined;
}

/**
 * True when any document taken from a client JSON text of `length` characters, whose nesting
 * `parseClientJson` already bounded, is within both bounds, so {@link documentBoundsIssue} can be
 * skipped. Each value counted takes at least two characters of the text (its first character,
 * and the comma or closing bracket after it), so such a text holds at most `length / 2` values;
 * and a part of a document is never nested deeper than the whole.
 */
export function withinBoundsByLength(length: number): boolean {
  return length <= 2 * MAX_CONTRACT_DOCUMENT_VALUES;
}

/** The first {@link MAX_REPORTED_ISSUES} items of a list and how many were left out. */
export function capReported<T>(items: readonly T[]): { kept: T[]; omitted: number } {
  return items.length <= MAX_REPORTED_ISSUES
    ? { kept: [...items], omitted: 0 }
    : { kept: items.slice(0, MAX_REPORTED_ISSUES), omitted: items.length - MAX_REPORTED_ISSUES };
}

/**
 * `{ valid, errors }` with at most {@link MAX_REPORTED_ISSUES} errors; `errorsOmitted` counts the
 * rest and is present only when some were left out.
 */
export function validationResult(errors: readonly ValidationIssue[]): ValidationResult {
  const { kept, omitted } = capReported(errors);
  const clipped = kept.map(clipIssue);
  return omitted === 0 ? { valid: clipped.length === 0, errors: clipped } : { valid: false, errors: clipped, errorsOmitted: omitted };
}

/** An issue whose path and message are at most {@link MAX_ERROR_TEXT_LENGTH} characters (they quote keys and values of the document). */
function clipIssue(issue: ValidationIssue): ValidationIssue {
  if (issue.field.length <= MAX_ERROR_TEXT_LENGTH && issue.message.length <= MAX_ERROR_TEXT_LENGTH) return issue;
  return { field: clipErrorText(issue.field), message: clipErrorText(issue.message) };
}

/**
 * The 400 `VALIDATION_ERROR` for a request that does not match its schema: at most
 * {@link MAX_REPORTED_ISSUES} entries in `details.fields`, and `details.fieldsOmitted` counting
 * the rest (present only when some were left out).
 */
export function requestValidationError(what: string, fields: readonly FieldIssue[]): CellgateError {
  const { kept, omitted } = capReported(fields);
  // The message names the issues that fit in an error's text, then counts the others; the room
  // leaves space for " is invalid (", "; and N more" and ")." around the summary.
  const room = MAX_ERROR_TEXT_LENGTH - what.length - 40;
  let summary = '';
  let shown = 0;
  for (const f of kept) {
    const part = `${shown === 0 ? '' : '; '}${f.path}: ${f.message}`;
    if (shown > 0 && summary.length + part.length > room) break;
    summary += part;
    shown += 1;
  }
  const rest = fields.length - shown;
  const more = rest > 0 ? `; and ${rest} more` : '';
  return new CellgateError('VALIDATION_ERROR', `${what} is invalid (${summary}${more}).`, {
    details: omitted > 0 ? { fields: kept, fieldsOmitted: omitted } : { fields: kept },
  });
}
