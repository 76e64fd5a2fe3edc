/**
 * Problems found in props and contracts as `{ field, message }`, worded by the contract's own error
 * map (docs/decisions/A02.md) so a props check reads like every other validation answer.
 */
import type { z } from 'zod';
import type { ValidationIssue } from '../../validation/results.ts';

export { parseOptions } from '../schema/messages.ts';

/**
 * Dot path below `prefix` (`props.columns.0.field`), or `prefix` itself for the whole value.
 * `separator` joins prefix and path: `.` below an option path, `:` after a file name
 * (`primitives.yaml:primitives.0.key`).
 */
export function issuePath(prefix: string, path: readonly PropertyKey[], separator = '.'): string {
  return path.length === 0 ? prefix : `${prefix}${separator}${path.map(String).join('.')}`;
}

/** Every issue of a failed parse (made with `parseOptions`) as `{ field, message }`, rooted at `prefix`. */
export function toValidationIssues(error: z.ZodError, prefix: string): ValidationIssue[] {
  return error.issues.map((issue) => ({ field: issuePath(prefix, issue.path), message: issue.message }));
}
