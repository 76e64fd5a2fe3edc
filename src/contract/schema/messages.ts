/**
 * The project's own wording of structural (zod) problems, kept stable across zod releases
 * (docs/decisions/A02.md): every parse of a contract schema goes through {@link contractErrorMap}, and every
 * zod issue becomes a `{ field, message }` through {@link toValidationIssues}. Schema-level
 * messages (`.regex(re, { error })`) still win, so the few custom sentences live beside their rule.
 */
import type { z } from 'zod';
import type { ValidationIssue } from '../../validation/results.ts';
import { issueBudget } from '../../validation/issue-budget.ts';

type Issue = z.core.$ZodRawIssue;

/** A short, safe name of a JSON value's type, as zod v3 used to print it (`received string`). */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : 'number';
  return typeof value;
}

const quoteList = (values: readonly unknown[]): string => values.map((value) => `'${String(value)}'`).join(' | ');

const expectedName: Record<string, string> = { record: 'object', int: 'integer' };

function invalidType(expected: string, input: unknown): string {
  if (expected === 'int' && typeof input === 'number') return 'Expected integer, received float';
  return `Expected ${expectedName[expected] ?? expected}, received ${typeName(input)}`;
}

function tooSmall(origin: string, minimum: number | bigint, inclusive: boolean | undefined): string {
  if (origin === 'array') return `Array must contain at least ${minimum} element(s)`;
  if (origin === 'string') return `String must contain at least ${minimum} character(s)`;
  return inclusive ? `Number must be greater than or equal to ${minimum}` : `Number must be greater than ${minimum}`;
}

function tooBig(origin: string, maximum: number | bigint, inclusive: boolean | undefined): string {
  if (origin === 'array') return `Array must contain at most ${maximum} element(s)`;
  if (origin === 'string') return `String must contain at most ${maximum} character(s)`;
  return inclusive ? `Number must be less than or equal to ${maximum}` : `Number must be less than ${maximum}`;
}

/** Message for a discriminated union whose tag matched no option. */
function unionMessage(issue: Extract<Issue, { code: 'invalid_union' }>): string {
  if (issue.discriminator === undefined) return 'Invalid input';
  const input = issue.input as Record<string, unknown> | undefined;
  if (input?.[issue.discriminator] === undefined) return 'Required';
  const options = 'options' in issue && Array.isArray(issue.options) ? (issue.options as unknown[]) : [];
  return `Invalid discriminator value. Expected ${quoteList(options)}`;
}

/**
 * The zod error map of every contract parse: project-owned English for each issue code, with
 * `Required` for any missing member (including a missing literal, unlike the reference service).
 */
export function contractErrorMap(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'Required' : invalidType(issue.expected, issue.input);
    case 'invalid_value':
      if (issue.input === undefined) return 'Required';
      if (issue.values.length === 1) return `Invalid literal value, expected ${JSON.stringify(issue.values[0])}`;
      return typeof issue.input === 'string'
        ? `Invalid enum value. Expected ${quoteList(issue.values)}, received '${issue.input}'`
        : `Expected ${quoteList(issue.values)}, received ${typeName(issue.input)}`;
    case 'unrecognized_keys':
      return `Unrecognized key(s) in object: ${issue.keys.map((key) => `'${key}'`).join(', ')}`;
    case 'too_small':
      return tooSmall(issue.origin, issue.minimum, issue.inclusive);
    case 'too_big':
      return tooBig(issue.origin, issue.maximum, issue.inclusive);
    case 'invalid_union':
      return unionMessage(issue);
    case 'invalid_format':
      return 'Invalid format';
    default:
      return 'Invalid input';
  }
}

/**
 * Parse options of every contract parse: the project error map, and the issue budget (see
 * `issue-budget.ts`; it acts only on schemas it was installed on).
 */
export const parseOptions = { error: contractErrorMap, ...issueBudget } as const;

/** A structural path: dot-joined with numeric indexes, `root` for the document itself (docs/decisions/A03.md). */
export function structuralPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'root' : path.map(String).join('.');
}

/** zod issues → `{ field, message }` in zod's order. */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({ field: structuralPath(issue.path), message: issue.message }));
}
