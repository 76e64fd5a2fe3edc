/**
 * Result shapes of every validation entry point (REST, MCP and library): one zod schema each,
 * reused for TypeScript types, OpenAPI and MCP output schemas.
 */
import { z } from 'zod';

/** One validation problem: the path of the offending value and a stable English message. */
export const ValidationIssueSchema = z
  .object({
    field: z
      .string()
      .describe(
        'Path of the offending value: dot path with numeric indexes for structural errors (`spec.pages.0.path`), bracket keys for semantic ones (`spec.entities[customer].fields[email]`), `root` for the whole document.',
      ),
    message: z.string().describe('What is wrong, as a stable English sentence.'),
  })
  .meta({ id: 'ValidationIssue' });

/** How many issues a result left out beyond the ones it lists (present only when some were). */
const errorsOmitted = z
  .int()
  .positive()
  .optional()
  .describe(
    'How many further issues were found but not listed: a result lists at most 100 issues. Checking stops soon after that many are found, so this counts the issues found, which may be fewer than the document has. Present only when some were left out.',
  );

/** `{ valid, errors, errorsOmitted? }`; `errors` is empty exactly when `valid` is true. */
export const ValidationResultSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(ValidationIssueSchema).describe('The issues found, in order; at most 100.'),
    errorsOmitted,
  })
  .meta({ id: 'ValidationResult' });

/** A normalization result: `manifest` is present exactly when `valid` is true. */
export const NormalizeResultSchema = z
  .object({
    valid: z.boolean(),
    manifest: z.record(z.string(), z.unknown()).optional().describe('The normalized manifest; present only when valid.'),
    errors: z.array(ValidationIssueSchema).describe('The issues found, in order; at most 100.'),
    errorsOmitted,
  })
  .meta({ id: 'NormalizeResult' });

/** One validation problem. */
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;
/** Result of `validateManifest`, `validateEntity`, `validatePage`, `validateEntityDocument`. */
export type ValidationResult = z.infer<typeof ValidationResultSchema>;
/** Result of `normalizeManifest`. */
export type NormalizeResult = z.infer<typeof NormalizeResultSchema>;

/** The JSON text of the valid result, `{ valid: true, errors: [] }`. */
const VALID_TEXT = JSON.stringify({ valid: true, errors: [] } satisfies ValidationResult);

/**
 * `JSON.stringify(result)` for a validation result, with the text of the common valid answer kept
 * as a constant: in a busy server, serialising even that small object cost more than a microsecond
 * per request.
 */
export function validationResultText(result: ValidationResult): string {
  const plainValid = result.valid === true && result.errors.length === 0 && Object.keys(result).length === 2;
  return plainValid ? VALID_TEXT : JSON.stringify(result);
}
