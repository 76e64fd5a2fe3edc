/** Turns zod issues into the project's stable `{ field, message }` pairs (docs/decisions/A02.md, docs/decisions/A03.md). */
import type { z } from 'zod';
import type { ValidationIssue } from '../validation/results.ts';

/** Dot path with numeric indexes; `root` for the whole document. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'root' : path.map(String).join('.');
}

function message(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'Required' : `Expected ${issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `Invalid literal value, expected ${JSON.stringify(issue.values[0])}`
        : `Must be one of: ${issue.values.map(String).join(', ')}`;
    case 'unrecognized_keys':
      return `Unknown propert${issue.keys.length === 1 ? 'y' : 'ies'}: ${issue.keys.join(', ')}`;
    default:
      return issue.message;
  }
}

/** Flattens zod issues into validation issues (unknown keys reported one per key path). */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({ field: issuePath(issue.path), message: message(issue) }));
}
