/**
 * Turns zod issues from a props check into `{ field, message }` items with the project's stable
 * English wording (DECISIONS A2), independent of zod's own default messages.
 */
import type { z } from 'zod';
import type { ValidationIssue } from '../schema/results.ts';

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function quoteAll(values: readonly unknown[], quote: string): string {
  return values.map((value) => `${quote}${String(value)}${quote}`).join(quote === "'" ? ' | ' : ', ');
}

/** The message of one zod issue, in the project's wording. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'Required' : `Expected ${issue.expected}, received ${describeValue(issue.input)}`;
    case 'unrecognized_keys':
      return `Unrecognized key(s) in object: ${issue.keys.map((key) => `'${key}'`).join(', ')}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `Invalid literal value, expected ${JSON.stringify(issue.values[0])}`
        : `Invalid enum value. Expected ${quoteAll(issue.values, "'")}, received '${String(issue.input)}'`;
    case 'too_small':
      if (issue.origin === 'array') return `Array must contain at least ${String(issue.minimum)} element(s)`;
      if (issue.origin === 'string') return `String must contain at least ${String(issue.minimum)} character(s)`;
      return `Number must be greater than or equal to ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'array') return `Array must contain at most ${String(issue.maximum)} element(s)`;
      if (issue.origin === 'string') return `String must contain at most ${String(issue.maximum)} character(s)`;
      return `Number must be less than or equal to ${String(issue.maximum)}`;
    case 'invalid_union':
      return 'Invalid input: matches none of the allowed shapes';
    default:
      return issue.message;
  }
}

/** Dot path below `prefix` (`props.columns.0.field`), or `prefix` itself for the whole value. */
export function issuePath(prefix: string, path: readonly PropertyKey[]): string {
  return path.length === 0 ? prefix : `${prefix}.${path.map(String).join('.')}`;
}

/** Every issue of a failed parse as `{ field, message }`, paths rooted at `prefix`. */
export function toValidationIssues(error: z.ZodError, prefix: string): ValidationIssue[] {
  return error.issues.map((issue) => ({ field: issuePath(prefix, issue.path), message: issueMessage(issue) }));
}
